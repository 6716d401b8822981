package dev.spotkit.core;

/** A timer callback; runs as one turn of the timer's owner, through its mailbox. */
@FunctionalInterface
public interface OnTick {
  /**
   * One tick. Throwing is logged; the timer keeps running.
   *
   * @throws Exception any failure.
   */
  void tick() throws Exception;
}
