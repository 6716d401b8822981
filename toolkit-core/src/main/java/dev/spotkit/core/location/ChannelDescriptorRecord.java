package dev.spotkit.core.location;

import dev.spotkit.store.StoreBytes;
import java.util.Objects;

/**
 * A ClientServer server descriptor ({@code client-server\0{ChannelName}\0{hex(RoutingId)}}) or a fanout
 * publisher descriptor ({@code fanout-publisher\0...}) (spec 002 section 3.4). Both share one shape; the fanout
 * form has no {@code weight} and names its RoutingId field {@code publisherRoutingIdHex} instead of
 * {@code serverRoutingIdHex}. Field order: recordVersion, ownerId, leaseGeneration, descriptorRevision,
 * descriptor {channelName, server/publisherRoutingIdHex, lifecycleGeneration, descriptorRevision, endpoint,
 * [weight,] state, securityIdentity, ownerId, leaseGeneration, updatedAtEpochMs}.
 *
 * @param kind ClientServer server or fanout publisher.
 * @param ownerId the publishing host run's OwnerId.
 * @param leaseGeneration its LeaseGeneration.
 * @param descriptorRevision the descriptor's revision.
 * @param channelName the channel.
 * @param routingIdHex RoutingId, lowercase hex.
 * @param lifecycleGeneration the server or publisher run.
 * @param endpoint the advertised endpoint.
 * @param weight 0..10000 for a ClientServer server; ignored (written nowhere) for a fanout publisher.
 * @param state the state.
 * @param securityIdentity the admission identity.
 * @param updatedAtEpochMs store time of the update.
 */
public record ChannelDescriptorRecord(Kind kind, String ownerId, LeaseGeneration leaseGeneration,
    long descriptorRevision, String channelName, String routingIdHex, long lifecycleGeneration, String endpoint,
    int weight, NodeState state, String securityIdentity, long updatedAtEpochMs) {

  /**
   * Checks for null and ranges.
   *
   * @throws IllegalArgumentException when the revision or weight is out of range.
   */
  public ChannelDescriptorRecord {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(ownerId, "ownerId");
    Objects.requireNonNull(leaseGeneration, "leaseGeneration");
    Generations.checkStored("descriptorRevision", descriptorRevision);
    Objects.requireNonNull(channelName, "channelName");
    Objects.requireNonNull(routingIdHex, "routingIdHex");
    Objects.requireNonNull(endpoint, "endpoint");
    if (kind == Kind.CLIENT_SERVER) {
      MeshNodeDescriptorRecord.checkWeight("weight", weight);
    }
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(securityIdentity, "securityIdentity");
  }

  /** Which descriptor. */
  public enum Kind {
    /** ClientServer server descriptor. */
    CLIENT_SERVER("client-server descriptor record", "serverRoutingIdHex"),
    /** Fanout publisher descriptor. */
    FANOUT_PUBLISHER("fanout-publisher descriptor record", "publisherRoutingIdHex");

    private final String recordName;
    private final String ridField;

    Kind(final String recordName, final String ridField) {
      this.recordName = recordName;
      this.ridField = ridField;
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
      g.writeStringField("channelName", channelName);
      g.writeStringField(kind.ridField, routingIdHex);
      RecordJson.u64(g, "lifecycleGeneration", lifecycleGeneration);
      RecordJson.u64(g, "descriptorRevision", descriptorRevision);
      g.writeStringField("endpoint", endpoint);
      if (kind == Kind.CLIENT_SERVER) {
        g.writeNumberField("weight", weight);
      }
      g.writeStringField("state", state.wire());
      g.writeStringField("securityIdentity", securityIdentity);
      g.writeStringField("ownerId", ownerId);
      RecordJson.u64(g, "leaseGeneration", leaseGeneration.value());
      RecordJson.u64(g, "updatedAtEpochMs", updatedAtEpochMs);
      g.writeEndObject();
      g.writeEndObject();
    }));
  }

  /**
   * Reads a stored value.
   *
   * @param kind which descriptor the key says it is.
   * @param bytes the stored bytes.
   * @return the record ({@code weight} is 0 for a fanout publisher).
   * @throws RecordDecodeException.UnknownVersion when recordVersion is not 1.
   * @throws RecordDecodeException.Malformed when the shape is wrong or the two copies of a field differ.
   */
  public static ChannelDescriptorRecord decode(final Kind kind, final StoreBytes bytes) {
    return RecordJson.read(kind.recordName, bytes.toByteArray(), n -> {
      final String ownerId = n.string("ownerId");
      final long lease = n.u64("leaseGeneration", 1);
      final long revision = n.u64("descriptorRevision", 1);
      final RecordJson.Node d = n.object("descriptor");
      DescriptorCopies.check(d, ownerId, lease, revision);
      return new ChannelDescriptorRecord(kind, ownerId, new LeaseGeneration(lease), revision,
          d.string("channelName"), d.string(kind.ridField), d.u64("lifecycleGeneration", 1), d.string("endpoint"),
          kind == Kind.CLIENT_SERVER ? d.integer("weight", 0, MeshNodeDescriptorRecord.MAX_WEIGHT) : 0,
          d.enumValue("state", NodeState.class), d.string("securityIdentity"), d.u64("updatedAtEpochMs", 0));
    });
  }
}
