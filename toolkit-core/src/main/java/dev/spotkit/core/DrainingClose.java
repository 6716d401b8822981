package dev.spotkit.core;

import dev.spotkit.core.internal.relocation.HostDrains;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The close of a node built with {@link MeshNode.Builder#drainOnClose(RelocateOptions)}: the host drain first (its
 * result logged), then the close, whatever the drain's outcome; and the wait of a second close call for the first.
 * Moved out of {@link MeshNode} unchanged. Stateless; any thread.
 */
final class DrainingClose {
  private DrainingClose() {
  }

  /** The drain (its result logged), then the close, whatever the drain's outcome. */
  static void drainThenClose(final NodeRuntime rt, final RelocateOptions drain) {
    try {
      final RelocateResult result = HostDrains.drain(rt, drain).get(drainBound(drain).toMillis(),
          TimeUnit.MILLISECONDS);
      final boolean all = result.outcome() == RelocateResult.Outcome.RELOCATED;
      final String line = "close: drained node {} first: outcome {}, {} actors and {} rooms moved, {} kept{}"
          + (all ? "" : "; what was kept closes with the node");
      final Object[] args = {rt.nodeRid(), result.outcome(), result.actors().size(), result.rooms().size(),
          result.kept().size(), result.kept().isEmpty() ? "" : " " + result.kept().stream()
          .map(k -> k.id() + "=" + k.reason()).limit(20).toList()};
      if (all) {
        NodeRuntime.LOG.info(line, args);
      } else {
        NodeRuntime.LOG.warn(line, args);
      }
    } catch (ExecutionException | TimeoutException e) {
      NodeRuntime.LOG.warn("close: the drain of node {} failed or did not end; closing anyway: {}", rt.nodeRid(),
          e.getCause() != null ? e.getCause().toString() : e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      rt.close();
    }
  }

  /** A second close call: waits for the first (draining) close to end; from a handler turn, returns at once. */
  static void awaitClose(final NodeRuntime rt, final RelocateOptions drain) {
    if (NodeRuntime.inTurn()) {
      return;
    }
    try {
      rt.terminated().exceptionally(f -> null).get(drainBound(drain).plus(rt.config().closeTimeout())
          .plus(MeshNode.CLOSE_MARGIN).toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      NodeRuntime.LOG.warn("close: a concurrent draining close did not finish in time");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** How long close waits for its drain: the deadline, a started room's two steps, and SafeToShutdown. */
  private static Duration drainBound(final RelocateOptions drain) {
    return drain.deadline().plus(Duration.ofSeconds(75)).plus(drain.awaitsSafeToShutdown() ? Duration.ofSeconds(30)
        : Duration.ZERO);
  }
}
