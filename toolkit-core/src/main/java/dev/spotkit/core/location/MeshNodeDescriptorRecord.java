package dev.spotkit.core.location;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.spotkit.store.StoreBytes;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The MeshNode descriptor a host publishes at {@code mesh-node\0{MeshName}\0{hex(RoutingId)}} (spec 002 sections
 * 3.4 and 4). The top level carries recordVersion, ownerId, leaseGeneration, descriptorRevision and descriptor;
 * the descriptor repeats ownerId, leaseGeneration and descriptorRevision, written from the same values, and a
 * decoder refuses a record whose two copies differ. {@code channelWeights} is written in key (code point) order.
 *
 * @param ownerId the publishing host run's OwnerId.
 * @param leaseGeneration its LeaseGeneration.
 * @param descriptorRevision the host's non-zero increasing revision of this descriptor.
 * @param descriptor the content.
 */
public record MeshNodeDescriptorRecord(String ownerId, LeaseGeneration leaseGeneration, long descriptorRevision,
    Descriptor descriptor) {
  private static final String NAME = "mesh-node descriptor record";
  /** At most this many registered object capabilities (spec 002 section 4). */
  public static final int MAX_CAPABILITIES = 1024;
  /** Weights are 0..10000. */
  public static final int MAX_WEIGHT = 10_000;

  /**
   * Checks for null and the revision.
   *
   * @throws IllegalArgumentException when the revision is not positive.
   */
  public MeshNodeDescriptorRecord {
    Objects.requireNonNull(ownerId, "ownerId");
    Objects.requireNonNull(leaseGeneration, "leaseGeneration");
    Objects.requireNonNull(descriptor, "descriptor");
    Generations.checkStored("descriptorRevision", descriptorRevision);
  }

  /** A node's object role. */
  public enum Role implements RecordJson.WireEnum {
    /** No object role. */
    NONE("none"),
    /** Object client. */
    CLIENT("client"),
    /** Object server. */
    SERVER("server");

    private final String wire;

    Role(final String wire) {
      this.wire = wire;
    }

    @Override
    public String wire() {
      return wire;
    }
  }

  /** A registered factory's relocation policy. */
  public enum Policy implements RecordJson.WireEnum {
    /** Not given. */
    UNSPECIFIED("unspecified"),
    /** DisableRelocation. */
    DISABLED("disabled"),
    /** RecreateOnRelocation. */
    RECREATE("recreate"),
    /** PreserveStateWith. */
    SNAPSHOT("snapshot");

    private final String wire;

    Policy(final String wire) {
      this.wire = wire;
    }

    @Override
    public String wire() {
      return wire;
    }
  }

  /**
   * One registered object type.
   *
   * @param objectKind actor, userSpot or instanceSpot.
   * @param stableType the stable type.
   * @param policy the relocation policy.
   * @param hasSnapshotAdapter whether a state adapter is registered.
   * @param limit the per-type limit, 0 for none.
   */
  public record Capability(PlacementKind objectKind, String stableType, Policy policy, boolean hasSnapshotAdapter,
      int limit) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public Capability {
      Objects.requireNonNull(objectKind, "objectKind");
      Objects.requireNonNull(stableType, "stableType");
      Objects.requireNonNull(policy, "policy");
    }
  }

  /**
   * Usage of one capacity class: {@code {active, reserved, limit}}.
   *
   * @param active active slots.
   * @param reserved reserved slots.
   * @param limit the limit, 0 for none.
   */
  public record Usage(int active, int reserved, int limit) {
  }

  /**
   * Usage of one Spot kind and stable type.
   *
   * @param objectKind userSpot or instanceSpot.
   * @param stableType the stable type.
   * @param usage active, reserved, limit.
   */
  public record SpotTypeUsage(PlacementKind objectKind, String stableType, Usage usage) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public SpotTypeUsage {
      Objects.requireNonNull(objectKind, "objectKind");
      Objects.requireNonNull(stableType, "stableType");
      Objects.requireNonNull(usage, "usage");
    }
  }

  /**
   * The descriptor content (spec 002 section 3.4, "MeshNode descriptor").
   *
   * @param meshName the RouteMesh name.
   * @param routingIdHex RoutingId, lowercase hex.
   * @param lifecycleGeneration the node run.
   * @param endpoint the advertised endpoint.
   * @param entrySpotId the Entry Spot id, or null unless the role is server.
   * @param channelWeights weight 0..10000 per ClientServer ChannelName.
   * @param applicationVersion the deployment sequence number.
   * @param objectCapabilities at most 1,024 registered types.
   * @param objectRole none, client or server.
   * @param placementWeight 0..10000.
   * @param actors Actor usage.
   * @param spots Spot usage.
   * @param spotTypes usage per Spot kind and stable type.
   * @param activationActive Instance Spot factories running now.
   * @param activationLimit their limit.
   * @param maintenanceWave the maintenance wave id, or null.
   * @param state the node state.
   * @param securityIdentity the identity peers verify.
   * @param updatedAtEpochMs store time of the update.
   */
  public record Descriptor(String meshName, String routingIdHex, long lifecycleGeneration, String endpoint,
      String entrySpotId, Map<String, Integer> channelWeights, long applicationVersion,
      List<Capability> objectCapabilities, Role objectRole, int placementWeight, Usage actors, Usage spots,
      List<SpotTypeUsage> spotTypes, int activationActive, int activationLimit, String maintenanceWave,
      NodeState state, String securityIdentity, long updatedAtEpochMs) {
    /**
     * Copies the collections and checks the ranges.
     *
     * @throws IllegalArgumentException when a weight or the capability count is out of range.
     */
    public Descriptor {
      Objects.requireNonNull(meshName, "meshName");
      Objects.requireNonNull(routingIdHex, "routingIdHex");
      Objects.requireNonNull(endpoint, "endpoint");
      final TreeMap<String, Integer> sorted = new TreeMap<>(LocationOrder.CODE_POINTS);
      sorted.putAll(channelWeights);
      sorted.forEach((channel, weight) -> checkWeight("channel weight of '" + channel + "'", weight));
      channelWeights = java.util.Collections.unmodifiableMap(sorted);
      objectCapabilities = List.copyOf(objectCapabilities);
      if (objectCapabilities.size() > MAX_CAPABILITIES) {
        throw new IllegalArgumentException("descriptor lists " + objectCapabilities.size()
            + " object capabilities, over the limit of " + MAX_CAPABILITIES);
      }
      checkWeight("placementWeight", placementWeight);
      Objects.requireNonNull(objectRole, "objectRole");
      Objects.requireNonNull(actors, "actors");
      Objects.requireNonNull(spots, "spots");
      spotTypes = List.copyOf(spotTypes);
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(securityIdentity, "securityIdentity");
    }
  }

  static void checkWeight(final String what, final int weight) {
    if (weight < 0 || weight > MAX_WEIGHT) {
      throw new IllegalArgumentException(what + " " + weight + " is outside 0.." + MAX_WEIGHT);
    }
  }

  /**
   * The canonical JSON bytes.
   *
   * @return the value to store.
   */
  public StoreBytes encode() {
    return StoreBytes.of(RecordJson.write(g -> {
      g.writeStartObject();
      g.writeNumberField("recordVersion", RecordJson.RECORD_VERSION);
      g.writeStringField("ownerId", ownerId);
      RecordJson.u64(g, "leaseGeneration", leaseGeneration.value());
      RecordJson.u64(g, "descriptorRevision", descriptorRevision);
      g.writeObjectFieldStart("descriptor");
      writeDescriptor(g);
      g.writeEndObject();
      g.writeEndObject();
    }));
  }

  private void writeDescriptor(final JsonGenerator g) throws IOException {
    final Descriptor d = descriptor;
    g.writeStringField("meshName", d.meshName());
    g.writeStringField("routingIdHex", d.routingIdHex());
    RecordJson.u64(g, "lifecycleGeneration", d.lifecycleGeneration());
    RecordJson.u64(g, "descriptorRevision", descriptorRevision);
    g.writeStringField("endpoint", d.endpoint());
    RecordJson.nullableString(g, "entrySpotId", d.entrySpotId());
    g.writeObjectFieldStart("channelWeights");
    for (Map.Entry<String, Integer> e : d.channelWeights().entrySet()) {
      g.writeNumberField(e.getKey(), e.getValue());
    }
    g.writeEndObject();
    RecordJson.u64(g, "applicationVersion", d.applicationVersion());
    g.writeArrayFieldStart("objectCapabilities");
    for (Capability c : d.objectCapabilities()) {
      g.writeStartObject();
      g.writeStringField("objectKind", c.objectKind().wire());
      g.writeStringField("stableType", c.stableType());
      g.writeStringField("policy", c.policy().wire());
      g.writeBooleanField("hasSnapshotAdapter", c.hasSnapshotAdapter());
      g.writeNumberField("limit", c.limit());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeStringField("objectRole", d.objectRole().wire());
    g.writeNumberField("placementWeight", d.placementWeight());
    g.writeObjectFieldStart("capacity");
    writeUsage(g, "actors", d.actors());
    writeUsage(g, "spots", d.spots());
    g.writeArrayFieldStart("spotTypes");
    for (SpotTypeUsage t : d.spotTypes()) {
      g.writeStartObject();
      g.writeStringField("objectKind", t.objectKind().wire());
      g.writeStringField("stableType", t.stableType());
      g.writeNumberField("active", t.usage().active());
      g.writeNumberField("reserved", t.usage().reserved());
      g.writeNumberField("limit", t.usage().limit());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
    g.writeObjectFieldStart("activationConcurrency");
    g.writeNumberField("active", d.activationActive());
    g.writeNumberField("limit", d.activationLimit());
    g.writeEndObject();
    RecordJson.nullableString(g, "maintenanceWave", d.maintenanceWave());
    g.writeStringField("state", d.state().wire());
    g.writeStringField("securityIdentity", d.securityIdentity());
    g.writeStringField("ownerId", ownerId);
    RecordJson.u64(g, "leaseGeneration", leaseGeneration.value());
    RecordJson.u64(g, "updatedAtEpochMs", d.updatedAtEpochMs());
  }

  private static void writeUsage(final JsonGenerator g, final String name, final Usage u) throws IOException {
    g.writeObjectFieldStart(name);
    g.writeNumberField("active", u.active());
    g.writeNumberField("reserved", u.reserved());
    g.writeNumberField("limit", u.limit());
    g.writeEndObject();
  }

  /**
   * Reads a stored value.
   *
   * @param bytes the stored bytes.
   * @return the record.
   * @throws RecordDecodeException.UnknownVersion when recordVersion is not 1.
   * @throws RecordDecodeException.Malformed when the shape is wrong or the two copies of a field differ.
   */
  public static MeshNodeDescriptorRecord decode(final StoreBytes bytes) {
    return RecordJson.read(NAME, bytes.toByteArray(), n -> {
      final String ownerId = n.string("ownerId");
      final long lease = n.u64("leaseGeneration", 1);
      final long revision = n.u64("descriptorRevision", 1);
      final RecordJson.Node d = n.object("descriptor");
      DescriptorCopies.check(d, ownerId, lease, revision);
      final Map<String, Integer> weights = new TreeMap<>(LocationOrder.CODE_POINTS);
      for (Map.Entry<String, JsonNode> e : d.object("channelWeights").fields()) {
        if (!e.getValue().isIntegralNumber() || !e.getValue().canConvertToInt()) {
          throw d.malformed("channelWeights." + e.getKey(), "is not an integer");
        }
        weights.put(e.getKey(), e.getValue().intValue());
      }
      final List<Capability> capabilities = new ArrayList<>();
      for (RecordJson.Node c : d.array("objectCapabilities")) {
        capabilities.add(new Capability(c.enumValue("objectKind", PlacementKind.class), c.string("stableType"),
            c.enumValue("policy", Policy.class), c.bool("hasSnapshotAdapter"), c.integer("limit", 0,
            Integer.MAX_VALUE)));
      }
      final RecordJson.Node cap = d.object("capacity");
      final List<SpotTypeUsage> spotTypes = new ArrayList<>();
      for (RecordJson.Node t : cap.array("spotTypes")) {
        spotTypes.add(new SpotTypeUsage(t.enumValue("objectKind", PlacementKind.class), t.string("stableType"),
            usage(t)));
      }
      final RecordJson.Node act = d.object("activationConcurrency");
      return new MeshNodeDescriptorRecord(ownerId, new LeaseGeneration(lease), revision, new Descriptor(
          d.string("meshName"), d.string("routingIdHex"), d.u64("lifecycleGeneration", 1), d.string("endpoint"),
          d.nullableString("entrySpotId"), weights, d.u64("applicationVersion", 0), capabilities,
          d.enumValue("objectRole", Role.class), d.integer("placementWeight", 0, MAX_WEIGHT),
          usage(cap.object("actors")), usage(cap.object("spots")), spotTypes,
          act.integer("active", 0, Integer.MAX_VALUE), act.integer("limit", 0, Integer.MAX_VALUE),
          d.nullableString("maintenanceWave"), d.enumValue("state", NodeState.class), d.string("securityIdentity"),
          d.u64("updatedAtEpochMs", 0)));
    });
  }

  private static Usage usage(final RecordJson.Node u) {
    return new Usage(u.integer("active", 0, Integer.MAX_VALUE), u.integer("reserved", 0, Integer.MAX_VALUE),
        u.integer("limit", 0, Integer.MAX_VALUE));
  }
}
