package dev.spotkit.core.internal.mesh;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.ReplyErrors;
import dev.spotkit.core.internal.runtime.ReplySink;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.wire.ApplicationMessage;
import dev.spotkit.core.wire.ApplicationMessageCodec;
import dev.spotkit.core.wire.OperationKind;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyCodec;
import dev.spotkit.core.wire.TerminalResult;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.WireFormatException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * A request {@link RouteMesh} sends to an object's owner (command 60 with a correlation, spec 001 section 3): its
 * frame, the deadline check before it leaves, and its reply (command 20) completing the caller's sink with the
 * decoded value or the typed error the owner answered.
 */
final class MeshRequests {

  private MeshRequests() {
  }

  /**
   * False (and the sink failed DeadlineExceeded) when the request's deadline passed before it was sent: nothing is
   * started past the deadline, not even on another node.
   */
  static boolean startable(final ReplySink sink) {
    if (sink.deadline.isExpired()) {
      sink.fail(new SpotkitException.DeadlineExceeded(sink.description + ": the deadline passed before it was"
          + " sent"));
      return false;
    }
    return true;
  }

  /** The command 60 request frame for a correlation, with the sink's remaining deadline budget (ms). */
  static LongFunction<byte[]> frame(final ApplicationMessage.TargetKind kind, final String id,
      final long generation, final String stableType, final int hops, final ApplicationPayload payload,
      final ReplySink sink) {
    return correlation -> ApplicationMessageCodec.encode(new ApplicationMessage(correlation, kind, id, generation,
        stableType, WireDeadlines.budgetMs(sink.deadline), hops, payload));
  }

  /**
   * Completes {@code sink} from {@code reply}: a connection failure as its typed error; an owner's NotFound,
   * StaleGeneration or Unavailable also drops the cached route of {@code key} ({@code dropRoute}), so the next send
   * asks the store.
   */
  static void completeWith(final NodeRuntime rt, final CompletableFuture<byte[]> reply, final ReplySink sink,
      final ObjectKey key, final Consumer<ObjectKey> dropRoute) {
    reply.whenComplete((frame, failure) -> {
      if (failure != null) {
        sink.fail(Cell.typed(RouteMesh.unwrap(failure), sink.description));
        return;
      }
      completeFromReply(rt, sink, key, frame, dropRoute);
    });
  }

  private static void completeFromReply(final NodeRuntime rt, final ReplySink sink, final ObjectKey key,
      final byte[] frame, final Consumer<ObjectKey> dropRoute) {
    final Reply reply;
    try {
      reply = ReplyCodec.decode(frame, key.kind() == dev.spotkit.core.location.AuthorityKind.ACTOR
          ? OperationKind.ACTOR_REQUEST : OperationKind.SPOT_REQUEST);
    } catch (WireFormatException e) {
      sink.fail(new SpotkitException.InternalFailure(sink.description + ": malformed reply from the owner: "
          + e.getMessage(), e));
      return;
    }
    if (reply.terminalResult() != TerminalResult.OK) {
      final SpotkitException error = ReplyErrors.toException(reply, sink.description);
      if (error instanceof SpotkitException.NotFound || error instanceof SpotkitException.StaleGeneration
          || error instanceof SpotkitException.Unavailable) { // Unavailable: the owner may be gone; ask the store next
        dropRoute.accept(key);
      }
      sink.fail(error);
      return;
    }
    if (reply.payload() == null) {
      sink.fail(new SpotkitException.InternalFailure(sink.description + ": the owner's reply has no payload"));
      return;
    }
    try {
      sink.complete(rt.copier().decodeReply(reply.payload())); // checked against the expected type as locally
    } catch (SpotkitException e) {
      sink.fail(e);
    }
  }
}
