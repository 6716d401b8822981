package dev.spotkit.core.mesh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * What the runtime plugs into a {@link MeshTransport}: it receives every framework frame from every peer,
 * and hears when connections open and close. All methods run on the connection's Netty event loop, one at a
 * time per connection and in arrival order; they must not block (hand the frame to a mailbox and return).
 * An exception thrown here is logged and closes that connection.
 */
public interface MeshListener {

  /**
   * A framework frame from an authenticated peer, in the order the peer sent it. Replies (command 20) that
   * match a request made with {@link PeerConnection#request} complete that request instead and do not come
   * here; unmatched replies (late, or correlated by the runtime itself) do.
   *
   * @param from the connection it arrived on.
   * @param frame the frame bytes, head included ({@code 5A 4D 01 ...}); the array belongs to the listener.
   */
  void onFrame(PeerConnection from, byte[] frame);

  /**
   * A command 52 relocationState frame from an authenticated peer, still in the connection's receive buffer (not
   * copied: spec 001 section 4.2 has the target's assembler copy each chunk into its own buffer at once), in the
   * order the peer sent it among all frames of {@link #onFrame}. Its framework head was checked; its body was not.
   *
   * <p>Ownership: the listener owns the one reference it is given from the call on, whether it returns or throws,
   * and must release it exactly once ({@link ByteBuf#release()}), on every path, as soon as it no longer reads it
   * (it may hand it to another thread first). The default copies the frame into a {@code byte[]}, releases the
   * buffer and calls {@link #onFrame}.
   *
   * @param from the connection it arrived on.
   * @param frame the frame bytes from its reader index to its writer index, head included ({@code 5A 4D 01 34 ..});
   *     the reader index is not moved by the transport.
   */
  default void onStateFrame(final PeerConnection from, final ByteBuf frame) {
    final byte[] bytes;
    try {
      bytes = ByteBufUtil.getBytes(frame);
    } finally {
      frame.release();
    }
    onFrame(from, bytes);
  }

  /**
   * A connection finished its handshake and is usable (dialed by this node or by the peer).
   *
   * @param connection the connection; called once per connection, before its first {@link #onFrame}.
   */
  default void onConnected(final PeerConnection connection) {
  }

  /**
   * A connection that was reported by {@link #onConnected} closed; called once, after its last
   * {@link #onFrame}. Requests pending on it already failed with Unavailable.
   *
   * @param connection the connection.
   * @param reason why it closed.
   */
  default void onConnectionLost(final PeerConnection connection, final CloseReason reason) {
  }
}
