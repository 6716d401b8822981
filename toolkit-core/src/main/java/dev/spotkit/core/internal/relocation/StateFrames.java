package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.relocation.TargetEvent;
import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.WireFormatException;
import io.netty.buffer.ByteBuf;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The target's intake of command 52 relocationState frames that arrive still in the connection's receive buffer
 * (the mesh decoder does not copy them): each is decoded in place on the event loop
 * ({@link RelocationCodec#decodeStateView(java.nio.ByteBuffer)}) and handed with its buffer to the unit's lane,
 * where the chunk assembler copies the chunk out (spec 001 section 4.2: the target's one copy of the state) and the
 * buffer is released.
 *
 * <h2>Release: exactly once on every path</h2>
 * A frame's one reference is owned by a {@link Held} from the moment it arrives; {@link Held#take} is one atomic
 * swap, so exactly one of the following releases it:
 * <ul>
 *   <li>the lane task, after the unit's step, whatever the step did (chunk assembled, duplicate, discarded as
 *       stray or for another identity or connection, failed assembly, no unit for the object, an exception);
 *       frames still queued when their connection closed run and are released the same way;</li>
 *   <li>{@link #onFrame} itself when the frame does not reach a lane: malformed (the connection is closed), any
 *       exception before the hand-off, or the lane rejecting the task (the node is closing);</li>
 *   <li>{@link #close}, for tasks the node's close dropped from the lanes' queues before they ran.</li>
 * </ul>
 */
final class StateFrames {

  private final Relocations relocations;
  /** Frames handed to a lane whose task has not taken them yet (what {@link #close} releases). */
  private final Set<Held> held = ConcurrentHashMap.newKeySet();

  StateFrames(final Relocations relocations) {
    this.relocations = relocations;
  }

  /**
   * One command 52 from a peer. Event loop.
   *
   * @param from the connection it arrived on.
   * @param frame the frame, head included, from its reader index to its writer index; owned from the call on
   *     (released here or by the lane, see the class comment).
   */
  void onFrame(final PeerConnection from, final ByteBuf frame) {
    final Held h = new Held(frame);
    boolean posted = false;
    try {
      final TargetEvent.ChunkArrived chunk = new TargetEvent.ChunkArrived(relocations.connectionId(from),
          RelocationCodec.decodeStateView(frame.nioBuffer())); // a view of the receive buffer, not a copy
      final String id = chunk.chunk().object().id();
      held.add(h); // only now: a close that releases it from here on makes the post below fail (lanes shut down)
      posted = relocations.post(id, at -> h.run(() -> relocations.known(id, RelocationFrame.State.COMMAND, from)
          .ifPresent(t -> t.feed(chunk, at))));
    } catch (WireFormatException e) {
      NodeRuntime.LOG.warn("malformed relocation command {} from {}: {}; closing the connection",
          RelocationFrame.State.COMMAND, from.peerRid(), e.getMessage());
      from.close();
    } finally {
      if (!posted) {
        h.release(); // malformed, an exception, or the lane refused the task: it never reaches a lane
      }
    }
  }

  /**
   * Node close, after the lanes were shut down ({@code shutdownNow}, so no task is accepted any more): releases every
   * frame whose task was dropped before it ran. A task running now took its frame already and releases it itself.
   * Closing thread.
   */
  void close() {
    for (Held h : held) {
      h.release();
    }
  }

  /**
   * Frames waiting for their lane task. Tests only.
   *
   * @return 0 when every frame handed to a lane was released.
   */
  int pending() {
    return held.size();
  }

  /** One frame's reference between the event loop and its lane: taken exactly once. */
  private final class Held {
    private final AtomicReference<ByteBuf> frame;

    Held(final ByteBuf frame) {
      this.frame = new AtomicReference<>(frame);
    }

    /** The frame, to the one caller that gets it first; null to every later one. */
    ByteBuf take() {
      final ByteBuf f = frame.getAndSet(null);
      if (f != null) {
        held.remove(this);
      }
      return f;
    }

    /** Releases the frame unless someone took it already. */
    void release() {
      final ByteBuf f = take();
      if (f != null) {
        f.release();
      }
    }

    /** Lane: runs {@code step} while holding the frame, then releases it; nothing when the close released it. */
    void run(final Runnable step) {
      final ByteBuf f = take();
      if (f == null) {
        return;
      }
      try {
        step.run();
      } finally {
        f.release(); // the assembler copied the chunk (or the unit discarded it): nothing reads the buffer now
      }
    }
  }
}
