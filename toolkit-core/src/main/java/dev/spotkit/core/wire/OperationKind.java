package dev.spotkit.core.wire;

/**
 * {@code mesh-operation-kind}: the kind of the request a command 20 answers. The reply does not carry it;
 * the requester knows it from its own table of pending requests and passes it to
 * {@link ReplyCodec#decode(byte[], OperationKind)}, because the reply's tail layout depends on it.
 */
public enum OperationKind {
  /** No request kind (a reply that carries no tail). */
  NONE(0),
  /** Node request. */
  NODE_REQUEST(1),
  /** Channel request. */
  CHANNEL_REQUEST(2),
  /** Spot request. */
  SPOT_REQUEST(3),
  /** Actor request. */
  ACTOR_REQUEST(4),
  /** Actor lookup (its tail is not implemented here). */
  ACTOR_LOOKUP(5),
  /** Actor destroy. */
  ACTOR_DESTROY(6),
  /** Actor join, command 28. */
  ACTOR_JOIN(7),
  /** Actor leave. */
  ACTOR_LEAVE(8),
  /** Stream bind (its tail is not implemented here). */
  STREAM_BIND(9),
  /** Stream unbind. */
  STREAM_UNBIND(10),
  /** Stream close. */
  STREAM_CLOSE(11),
  /** Instance Spot request. */
  INSTANCE_SPOT_REQUEST(12),
  /** User Spot create, command 47. */
  USER_SPOT_CREATE(13),
  /** User Spot close, command 48. */
  USER_SPOT_CLOSE(14),
  /** Actor create, command 49. */
  ACTOR_CREATE(15);

  private final int wire;

  OperationKind(final int wire) {
    this.wire = wire;
  }

  /**
   * The wire value (used where a frozen record stores the kind).
   *
   * @return the u32 value.
   */
  public int wireValue() {
    return wire;
  }
}
