package dev.spotkit.core.mesh;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/** A {@link MeshListener} that records everything, with bounded waits for the tests. */
final class Recorder implements MeshListener {

  /** A frame and the connection it arrived on. */
  record Frame(PeerConnection from, byte[] bytes) {
  }

  /** A lost connection and why. */
  record Lost(PeerConnection connection, CloseReason reason) {
  }

  final BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
  final BlockingQueue<PeerConnection> connected = new LinkedBlockingQueue<>();
  final BlockingQueue<Lost> lost = new LinkedBlockingQueue<>();
  final List<PeerConnection> everConnected = new CopyOnWriteArrayList<>();
  /** Optional reaction to a frame (runs on the event loop, like a runtime's dispatch). */
  volatile BiConsumer<PeerConnection, byte[]> onFrame;

  @Override
  public void onFrame(final PeerConnection from, final byte[] frame) {
    final BiConsumer<PeerConnection, byte[]> reaction = onFrame;
    if (reaction != null) {
      reaction.accept(from, frame);
    } else {
      frames.add(new Frame(from, frame));
    }
  }

  @Override
  public void onConnected(final PeerConnection connection) {
    everConnected.add(connection);
    connected.add(connection);
  }

  @Override
  public void onConnectionLost(final PeerConnection connection, final CloseReason reason) {
    lost.add(new Lost(connection, reason));
  }

  static <T> T next(final BlockingQueue<T> queue) throws InterruptedException {
    final T t = queue.poll(10, TimeUnit.SECONDS);
    if (t == null) {
      throw new AssertionError("nothing arrived within 10 s");
    }
    return t;
  }
}
