package dev.spotkit.core.mesh;

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
