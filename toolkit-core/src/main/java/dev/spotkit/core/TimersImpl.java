package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.CellTimers;
import java.time.Duration;
import java.util.Set;

/** {@link Timers} over a cell's timers. */
final class TimersImpl implements Timers {
  private final CellTimers timers;

  TimersImpl(final CellTimers timers) {
    this.timers = timers;
  }

  @Override
  public void every(final String name, final Duration period, final OnTick tick) {
    timers.every(name, period, tick);
  }

  @Override
  public boolean cancel(final String name) {
    return timers.cancel(name);
  }

  @Override
  public Set<String> names() {
    return timers.names();
  }
}
