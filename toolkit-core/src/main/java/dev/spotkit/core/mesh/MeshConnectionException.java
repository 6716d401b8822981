package dev.spotkit.core.mesh;

/**
 * Why a mesh connection could not be opened or was closed: a typed {@link CloseReason} and a detail naming
 * the values involved (for example {@code expected peer 00000000000000b2, got 00000000000000c3}). Futures of
 * {@link MeshTransport#connect} and {@link PeerConnection#request} fail with
 * {@link dev.spotkit.core.SpotkitException.Unavailable} whose cause is this exception.
 */
public final class MeshConnectionException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Set once in the constructor. */
  private final CloseReason reason;
  private final String detail;

  /**
   * Creates the exception.
   *
   * @param reason the typed reason.
   * @param detail what happened, with the values involved.
   */
  public MeshConnectionException(final CloseReason reason, final String detail) {
    super(reason + ": " + detail);
    this.reason = reason;
    this.detail = detail;
  }

  /**
   * What happened, without the reason prefix.
   *
   * @return the detail.
   */
  public String detail() {
    return detail;
  }

  /**
   * The typed reason.
   *
   * @return the reason.
   */
  public CloseReason reason() {
    return reason;
  }
}
