package dev.spotkit.core.mesh;

/**
 * Why a mesh connection closed or a handshake failed. Logged with the connection whenever it closes, passed
 * to {@link MeshListener#onConnectionLost}, and carried by {@link MeshConnectionException}. The first group
 * is the peer's fault and is logged at WARN.
 */
public enum CloseReason {
  /** A frame that is empty, neither a handshake message nor a framework frame, or has a bad head. */
  MALFORMED_FRAME(true),
  /** A frame longer than {@link MeshConfig#maxFrameLength()}. */
  OVERSIZED_FRAME(true),
  /** A framework frame arrived before the handshake finished. */
  UNAUTHENTICATED_FRAME(true),
  /** A handshake message that does not fit the handshake state (or arrives after it). */
  HANDSHAKE_PROTOCOL(true),
  /** The peer's HMAC proof is wrong: it does not know the cluster secret. */
  AUTHENTICATION_FAILED(true),
  /** The peer is not the node the dialer expected (another NodeRid answered at that endpoint). */
  WRONG_PEER(true),
  /** The peer claims this node's own NodeRid. */
  SELF_CONNECTION(true),
  /** The handshake did not finish within {@link MeshConfig#handshakeTimeout()}. */
  HANDSHAKE_TIMEOUT(false),
  /** The peer pair already has a connection; this one lost the deterministic tie-break. */
  DUPLICATE_CONNECTION(false),
  /** The peer's lifecycle generation is older than that of the connection already open to it. */
  STALE_GENERATION(false),
  /** A newer lifecycle generation of the same peer connected; this older connection was replaced. */
  SUPERSEDED(false),
  /** The peer refused the handshake (its reason is in the detail). */
  REJECTED_BY_PEER(false),
  /** The peer closed the connection, or the TCP connection failed. */
  PEER_CLOSED(false),
  /** An I/O error on the socket (reset, refused, unreachable). */
  IO_ERROR(false),
  /** {@link PeerConnection#close()} was called. */
  LOCAL_CLOSE(false),
  /** The transport is closing. */
  TRANSPORT_CLOSED(false),
  /** The {@link MeshListener} threw; the exception is logged. */
  LISTENER_FAILED(false),
  /** An unexpected exception in the transport itself (a bug); logged with its stack trace. */
  INTERNAL_ERROR(false);

  private final boolean peerFault;

  CloseReason(final boolean peerFault) {
    this.peerFault = peerFault;
  }

  /**
   * Whether the peer broke the protocol (logged at WARN) rather than an ordinary close.
   *
   * @return true for malformed, oversized, unauthenticated, wrong-peer and failed-authentication closes.
   */
  public boolean peerFault() {
    return peerFault;
  }
}
