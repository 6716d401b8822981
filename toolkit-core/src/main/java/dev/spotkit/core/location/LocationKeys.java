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
   * {@code node-capacity\0{MeshName}\0{hex(RoutingId)}}: the per-node usage record ({@link NodeCapacityRecord}).
   *
   * <p>Spotkit-defined, not a spec preimage: spec 002 sections 4 and 6 require a node's current usage and the
   * capacity other operations secured to be checked and changed in the same all-or-nothing request as the
   * authority row (the descriptor's counts are only a copy for operators), but name no key for that record.
   * Spotkit keeps it apart from the descriptor so that a reservation does not rewrite the descriptor and a
   * descriptor publish does not move the usage. Other-language runtimes sharing a store must use the same key.
   *
   * @param meshName the RouteMesh name, without a 0x00 byte.
   * @param routingId the node's RoutingId bytes, at least one.
   * @return the key.
   * @throws IllegalArgumentException when the name contains 0x00 or the RoutingId is empty.
   */
  public static LogicalKey nodeCapacity(final String meshName, final byte[] routingId) {
    return LogicalKey.of("node-capacity", meshName, hex(routingId));
  }

  /**
   * {@link #nodeCapacity(String, byte[])} for a RoutingId already in lowercase hex, as descriptors and
   * allocations carry it.
   *
   * @param meshName the RouteMesh name.
   * @param routingIdHex the RoutingId as lowercase hex, an even number (at least 2) of {@code [0-9a-f]}.
   * @return the key.
   * @throws IllegalArgumentException when the hex is not lowercase hex of at least one byte.
   */
  public static LogicalKey nodeCapacity(final String meshName, final String routingIdHex) {
    return nodeCapacity(meshName, parseRoutingIdHex(routingIdHex));
  }

  /**
   * {@link #meshNode(String, byte[])} for a RoutingId already in lowercase hex.
   *
   * @param meshName the RouteMesh name.
   * @param routingIdHex the RoutingId as lowercase hex.
   * @return the key.
   * @throws IllegalArgumentException when the hex is not lowercase hex of at least one byte.
   */
  public static LogicalKey meshNode(final String meshName, final String routingIdHex) {
    return meshNode(meshName, parseRoutingIdHex(routingIdHex));
  }

  /**
   * The scan prefix of every MeshNode descriptor of one mesh: {@code mesh-node\0{MeshName}\0}.
   *
   * @param meshName the RouteMesh name.
   * @return the prefix preimage.
   */
  public static String meshNodePrefix(final String meshName) {
    return LogicalKey.of("mesh-node", meshName, "").preimage();
  }

  /**
   * The scan prefix of every authority row of one kind: {@code authority\0{actor|spot}\0}.
   *
   * @param kind actor or spot.
   * @return the prefix preimage.
   */
  public static String authorityPrefix(final AuthorityKind kind) {
    return LogicalKey.of("authority", kind.segment(), "").preimage();
  }

  /**
   * {@code admin-drain\0{MeshName}\0{hex(RoutingId)}}: an operator's drain request to one node and that node's
   * answer ({@link DrainRequestRecord}, issue 15).
   *
   * <p>Spotkit-defined, not a spec preimage: only Spotkit nodes built with
   * {@code MeshOptions.acceptAdminDrains(...)} read it. Other-language runtimes ignore it.
   *
   * @param meshName the RouteMesh name, without a 0x00 byte.
   * @param routingIdHex the node's RoutingId as lowercase hex.
   * @return the key.
   * @throws IllegalArgumentException when the name contains 0x00 or the hex is not lowercase hex of a byte or more.
   */
  public static LogicalKey adminDrain(final String meshName, final String routingIdHex) {
    return LogicalKey.of("admin-drain", meshName, hex(parseRoutingIdHex(routingIdHex)));
  }

  /**
   * The scan prefix of every drain request of every mesh: {@code admin-drain\0}.
   *
   * @return the prefix preimage.
   */
  public static String adminDrainPrefix() {
    return "admin-drain\0";
  }

  /**
   * The scan prefix of every MeshNode descriptor of every mesh: {@code mesh-node\0}.
   *
   * @return the prefix preimage.
   */
  public static String meshNodePrefix() {
    return "mesh-node\0";
  }

  private static byte[] parseRoutingIdHex(final String routingIdHex) {
    if (routingIdHex.isEmpty() || !routingIdHex.matches("([0-9a-f]{2})+")) {
      throw new IllegalArgumentException("RoutingId hex '" + routingIdHex
          + "' is not lowercase hex of at least one byte");
    }
    return HexFormat.of().parseHex(routingIdHex);
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
   * {@code aggregate\0{SpotId}}: the aggregate authority of a SpotWide User Spot ({@link AggregateRecord}, spec 000
   * section 7, spec 002 section 8.1 "SpotWide User Spot whole-move record").
   *
   * <p>Spotkit-defined, not a spec preimage (the spec names the record, not its key): other-language runtimes
   * sharing a store must use the same key.
   *
   * @param spotId the SpotId, without a 0x00 byte.
   * @return the key.
   * @throws IllegalArgumentException when the id contains 0x00.
   */
  public static LogicalKey aggregate(final String spotId) {
    return LogicalKey.of("aggregate", spotId);
  }

  /**
   * {@code aggregate-inventory\0{SpotId}\0{sha256 hex of the chunk}}: one immutable inventory chunk of a SpotWide
   * User Spot aggregate ({@link InventoryTree}, spec 000 section 7). Content-addressed: the same key always holds
   * the same bytes. Spotkit-defined, like {@link #aggregate(String)}.
   *
   * @param spotId the SpotId, without a 0x00 byte.
   * @param chunkSha256Hex the chunk's SHA-256, 64 lowercase hex characters.
   * @return the key.
   * @throws IllegalArgumentException when the id contains 0x00.
   */
  public static LogicalKey aggregateInventory(final String spotId, final String chunkSha256Hex) {
    return LogicalKey.of("aggregate-inventory", spotId, chunkSha256Hex);
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
