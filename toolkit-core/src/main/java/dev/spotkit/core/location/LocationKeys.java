package dev.spotkit.core.location;

import java.util.HexFormat;

/**
 * The logical keys of spec 002 section 3.4 and FACTS.md "Redis layout". Every builder checks that no part
 * contains a 0x00 byte; RoutingIds are given as raw bytes and written as lowercase hex.
 */
public final class LocationKeys {
  /** Counter of LeaseGenerations (one per host run). */
  public static final LogicalKey OWNER_COUNTER = new LogicalKey("zlink:v11:owner-counter");
  /** Counter of ObjectGenerations (one store-wide sequence). */
  public static final LogicalKey OBJECT_COUNTER = new LogicalKey("zlink:v11:object-counter");
  /** Counter of AuthorityOwnerGenerations (one per owner change). */
  public static final LogicalKey AUTHORITY_OWNER_COUNTER = new LogicalKey("zlink:v11:authority-owner-counter");

  private LocationKeys() {
  }

  /**
   * {@code mesh-node\0{MeshName}\0{hex(RoutingId)}}.
   *
   * @param meshName the RouteMesh name.
   * @param routingId the node's RoutingId bytes.
   * @return the key.
   */
  public static LogicalKey meshNode(final String meshName, final byte[] routingId) {
    return LogicalKey.of("mesh-node", meshName, hex(routingId));
  }

  /**
   * {@code owner-lease\0{OwnerId}}.
   *
   * @param ownerId the host run's OwnerId.
   * @return the key.
   */
  public static LogicalKey ownerLease(final String ownerId) {
    return LogicalKey.of("owner-lease", ownerId);
  }

  /**
   * {@code client-server\0{ChannelName}\0{hex(RoutingId)}}.
   *
   * @param channelName the ClientServer channel.
   * @param routingId the server's RoutingId bytes.
   * @return the key.
   */
  public static LogicalKey clientServer(final String channelName, final byte[] routingId) {
    return LogicalKey.of("client-server", channelName, hex(routingId));
  }

  /**
   * {@code fanout-publisher\0{ChannelName}\0{hex(RoutingId)}}.
   *
   * @param channelName the fanout channel.
   * @param routingId the publisher's RoutingId bytes.
   * @return the key.
   */
  public static LogicalKey fanoutPublisher(final String channelName, final byte[] routingId) {
    return LogicalKey.of("fanout-publisher", channelName, hex(routingId));
  }

  /**
   * {@code authority\0{actor|spot}\0{Id}}.
   *
   * @param kind actor or spot.
   * @param id the global ActorId or SpotId.
   * @return the key.
   */
  public static LogicalKey authority(final AuthorityKind kind, final String id) {
    return LogicalKey.of("authority", kind.segment(), id);
  }

  /**
   * {@code creation-terminal\0{hex(source Node RID)}\0{source host generation}\0{OperationId as 32 hex}}: the
   * terminal record of one creation operation (MEM-04..06).
   *
   * @param sourceNodeRid the source node's RoutingId bytes.
   * @param sourceHostGeneration the source's lifecycle generation.
   * @param operationHigh the OperationId's high 64 bits.
   * @param operationLow the OperationId's low 64 bits.
   * @return the key.
   */
  public static LogicalKey creationTerminal(final byte[] sourceNodeRid, final long sourceHostGeneration,
      final long operationHigh, final long operationLow) {
    return LogicalKey.of("creation-terminal", hex(sourceNodeRid), Long.toUnsignedString(sourceHostGeneration),
        HexFormat.of().toHexDigits(operationHigh) + HexFormat.of().toHexDigits(operationLow));
  }

  private static String hex(final byte[] routingId) {
    if (routingId.length == 0) {
      throw new IllegalArgumentException("a RoutingId has at least one byte");
    }
    return HexFormat.of().formatHex(routingId);
  }
}
