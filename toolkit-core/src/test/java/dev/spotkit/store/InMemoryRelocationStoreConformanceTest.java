package dev.spotkit.store;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** The conformance suite on {@link InMemoryRelocationStore}, with a clock the tests move. */
class InMemoryRelocationStoreConformanceTest extends RelocationStoreConformance {
  private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);

  @Override
  protected RelocationStore newStore() {
    return new InMemoryRelocationStore(() -> Instant.ofEpochMilli(millis.get()));
  }

  @Override
  protected boolean advanceStoreTime(final Duration by) {
    millis.addAndGet(by.toMillis());
    return true;
  }
}
