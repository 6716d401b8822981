package dev.spotkit.core.location;

import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreVersion;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Maps the runtime's {@link LocationRecord} to and from the canonical {@link AuthorityRecord}, and reads one
 * object's row.
 */
public final class LocationRecords {
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

  private LocationRecords() {
  }

  /**
   * A decoded row with the version it was read at.
   *
   * @param record the runtime view.
   * @param authority the canonical record.
   * @param version the StoreVersion to expect in a later write.
   */
  public record Stored(LocationRecord record, AuthorityRecord authority, StoreVersion version) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public Stored {
      Objects.requireNonNull(record, "record");
      Objects.requireNonNull(authority, "authority");
      Objects.requireNonNull(version, "version");
    }
  }

  /**
   * Reads one object's row; a missing row creates nothing (LOC-06). A member row that points at its SpotWide User
   * Spot's aggregate ({@link AggregatePointer}) is returned with the aggregate's owner ({@link
   * AggregateAuthority#effective}) and its own version. Blocks at most 10 s per read; virtual threads only.
   *
   * @param store the store.
   * @param key the object.
   * @return the row, or empty when Missing.
   * @throws dev.spotkit.core.SpotkitException.Unavailable when the store fails.
   * @throws RecordDecodeException when the row is not a readable authority record.
   */
  public static Optional<Stored> read(final LocationStore store, final ObjectKey key) {
    return read(store, key, READ_TIMEOUT);
  }

  /**
   * Reads one object's row, waiting at most {@code timeout}; a missing row creates nothing (LOC-06). Virtual threads
   * only.
   *
   * @param store the store.
   * @param key the object.
   * @param timeout the longest wait, positive.
   * @return the row, or empty when Missing.
   * @throws dev.spotkit.core.SpotkitException.Unavailable when the store fails or does not answer in time.
   * @throws RecordDecodeException when the row is not a readable authority record.
   */
  public static Optional<Stored> read(final LocationStore store, final ObjectKey key, final Duration timeout) {
    final ReadResult result = StoreCalls.await(store.read(key.logicalKey().preimage()), timeout,
        "read of " + key.logicalKey());
    return switch (result) {
      case ReadResult.Missing missing -> Optional.empty();
      case ReadResult.Found found -> {
        // spec 000 section 7: a member row that points at its SpotWide User Spot's aggregate has the aggregate's owner
        final AuthorityRecord authority = AggregateAuthority.effective(store, AuthorityRecord.decode(found.value()),
            timeout);
        yield Optional.of(new Stored(fromAuthority(key, authority), authority, found.version()));
      }
    };
  }

  /**
   * Reads many objects' rows in batched requests ({@link LocationStore#readAll}, at most {@link
   * dev.spotkit.store.StoreLimits#MAX_BATCH_KEYS} keys each); a missing row creates nothing (LOC-06). Rows that point
   * at an aggregate get its owner as in {@link #read(LocationStore, ObjectKey, Duration)}, each aggregate read once
   * ({@link AggregateAuthority#effectiveAll}). Blocks; virtual threads only.
   *
   * @param store the store.
   * @param keys the objects, any number.
   * @param timeout the longest wait of each request, positive.
   * @return one entry per key, in the order given: the row, or empty when Missing.
   * @throws dev.spotkit.core.SpotkitException.Unavailable when the store fails or does not answer in time.
   * @throws RecordDecodeException when a row is not a readable authority record.
   */
  public static java.util.List<Optional<Stored>> readAll(final LocationStore store,
      final java.util.List<ObjectKey> keys, final Duration timeout) {
    final java.util.List<ReadResult> results = new java.util.ArrayList<>(keys.size());
    for (int from = 0; from < keys.size(); from += dev.spotkit.store.StoreLimits.MAX_BATCH_KEYS) {
      final java.util.List<String> batch = keys.subList(from, Math.min(keys.size(),
          from + dev.spotkit.store.StoreLimits.MAX_BATCH_KEYS)).stream().map(k -> k.logicalKey().preimage()).toList();
      results.addAll(StoreCalls.await(store.readAll(batch), timeout, "read of " + batch.size() + " rows"));
    }
    final java.util.List<AuthorityRecord> found = new java.util.ArrayList<>();
    for (ReadResult r : results) {
      if (r instanceof ReadResult.Found f) {
        found.add(AuthorityRecord.decode(f.value()));
      }
    }
    final java.util.List<AuthorityRecord> effective = AggregateAuthority.effectiveAll(store, found, timeout);
    final java.util.List<Optional<Stored>> out = new java.util.ArrayList<>(keys.size());
    int next = 0;
    for (int i = 0; i < keys.size(); i++) {
      if (results.get(i) instanceof ReadResult.Found f) {
        final AuthorityRecord authority = effective.get(next++);
        out.add(Optional.of(new Stored(fromAuthority(keys.get(i), authority), authority, f.version())));
      } else {
        out.add(Optional.empty());
      }
    }
    return out;
  }

  /**
   * The runtime view of a row.
   *
   * @param key the object.
   * @param authority the row.
   * @return the view.
   */
  public static LocationRecord fromAuthority(final ObjectKey key, final AuthorityRecord authority) {
    final String membership = AggregatePointer.membershipOf(authority.payload());
    return new LocationRecord(key, authority.objectGeneration().value(), authority.allocation().stableType(),
        authority.ownerId(), membership, authority.allocation().state() == AuthorityRecord.State.ACTIVE
        ? RecordState.READY : RecordState.CREATING, authority.authorityOwnerGeneration().value());
  }

  /**
   * The row for a runtime record.
   *
   * @param record the runtime view, with its AuthorityOwnerGeneration set.
   * @param kind the allocation kind.
   * @param lease the owner's LeaseGeneration.
   * @param meshName the owner node's MeshName.
   * @param routingIdHex the owner node's RoutingId in hex.
   * @param lifecycleGeneration the owner node's lifecycle generation.
   * @return the canonical record.
   */
  public static AuthorityRecord toAuthority(final LocationRecord record, final PlacementKind kind,
      final LeaseGeneration lease, final String meshName, final String routingIdHex, final long lifecycleGeneration) {
    final AuthorityRecord.Capacity capacity = switch (kind) {
      case ACTOR -> AuthorityRecord.Capacity.actor();
      case USER_SPOT, INSTANCE_SPOT -> AuthorityRecord.Capacity.spot(kind, record.stableType());
      case ENTRY_SPOT -> new AuthorityRecord.Capacity(0, 0, null);
    };
    return new AuthorityRecord(record.membership() == null ? StoreBytes.empty() : StoreBytes.utf8(record.membership()),
        new ObjectGeneration(record.objectGeneration()),
        new AuthorityOwnerGeneration(record.authorityOwnerGeneration()), record.owner(), lease,
        new AuthorityRecord.Allocation(record.state() == RecordState.READY ? AuthorityRecord.State.ACTIVE
            : AuthorityRecord.State.RESERVED, kind, record.stableType(), meshName, routingIdHex, lifecycleGeneration,
            capacity), null);
  }
}
