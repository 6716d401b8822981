package dev.spotkit.core;

import java.time.Duration;
import java.util.Set;

/**
 * Named periodic timers of one Spot or Actor. Each tick is delivered as a turn through the owner's mailbox
 * (spec 003 section 3: timer callbacks go into the Spot queue), so it never runs at the same time as a
 * handler of the owner. Ticks do not pile up: while one is queued, later ones are skipped. Timers are
 * cancelled when the owner is closed or destroyed and when the node closes. Any thread.
 */
public sealed interface Timers permits TimersImpl {

  /**
   * Starts a timer firing every {@code period}, first after one period. A timer with the same name is
   * replaced: the old one is cancelled and its queued tick dropped (the key semantics of Akka's timers).
   *
   * @param name 1..255 UTF-8 bytes, no NUL.
   * @param period at least 1 ms.
   * @param tick runs as a turn of the owner.
   * @throws SpotkitException.InvalidOperation on a bad name or period, or when the owner is gone.
   */
  void every(String name, Duration period, OnTick tick);

  /**
   * Cancels a timer; a tick already queued is dropped.
   *
   * @param name the timer.
   * @return true when a timer of that name was running.
   */
  boolean cancel(String name);

  /**
   * Names of the running timers.
   *
   * @return a snapshot.
   */
  Set<String> names();
}
