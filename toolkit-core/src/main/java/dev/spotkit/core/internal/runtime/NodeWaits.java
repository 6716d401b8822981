package dev.spotkit.core.internal.runtime;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The wait of a node's background loops between passes (admin drain polls, the dead-owner sweep). */
public final class NodeWaits {
  private NodeWaits() {
  }

  /**
   * Waits up to {@code nanos} for the node to end (close, halt or owner lease loss). Blocks the calling (virtual)
   * thread; an interrupt ends the wait as the node's end does, with the interrupt flag set again.
   *
   * @param rt the node.
   * @param nanos the longest wait, nanoseconds, 0 or more.
   * @return true when the node ended (or the thread was interrupted): the loop stops; false when the time passed.
   */
  public static boolean endsWithin(final NodeRuntime rt, final long nanos) {
    try {
      rt.terminated().get(nanos, TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }
}
