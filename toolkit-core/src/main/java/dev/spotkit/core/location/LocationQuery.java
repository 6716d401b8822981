package dev.spotkit.core.location;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanCursor;
import dev.spotkit.store.ScanEntry;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreLimits;
import dev.spotkit.store.StoreVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The operator query of spec 002 section 7.4: one object's current location by global id, and a paged list of
 * one authority kind, optionally filtered by stable type and MeshName. For checking status only: never a message
 * target list or a placement condition, and nothing here is cached.
 *
 * <p>A list runs one same-point-in-time scan of {@code authority\0actor\0} or {@code authority\0spot\0}; the
 * continuation is the provider's opaque cursor, handed back unchanged (at most 4,096 bytes). No id appears twice
 * in one cycle; a change completed during the cycle may first appear in the next one. A store failure ends the
 * whole page with an error and no partial entries.
 *
 * <p>A SpotWide room member's row that points at the room's aggregate ({@link AggregatePointer}) is reported with the
 * aggregate's owner, as routing resolves it (one aggregate read per room per call).
 * Blocking: waits for each store call at most the timeout given; virtual threads only. Thread-safety: any thread.
 */
public final class LocationQuery {
  /** Store pages one list call reads at most when a filter drops entries; it then returns a shorter page. */
  public static final int MAX_STORE_PAGES_PER_LIST = 64;

  private final LocationStore store;
  private final Duration timeout;

  /**
   * A query over {@code store}.
   *
   * @param store the Location Store.
   * @param timeout the longest wait of each store call, positive.
   */
  public LocationQuery(final LocationStore store, final Duration timeout) {
    this.store = Objects.requireNonNull(store, "store");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * One object's location as its authority row records it.
   *
   * @param key kind and global id.
   * @param objectKind actor, userSpot or instanceSpot.
   * @param stableType the factory's stable type.
   * @param state CREATING (allocation reserved) or READY (allocation active).
   * @param objectGeneration the incarnation.
   * @param authorityOwnerGeneration the owner change order.
   * @param ownerId the owner host run's OwnerId.
   * @param ownerLeaseGeneration its LeaseGeneration.
   * @param meshName the owner node's MeshName.
   * @param routingIdHex the owner node's RoutingId, lowercase hex.
   * @param lifecycleGeneration the owner node run.
   * @param version the row's StoreVersion when read.
   */
  public record LocationView(ObjectKey key, PlacementKind objectKind, String stableType, RecordState state,
      long objectGeneration, long authorityOwnerGeneration, String ownerId, LeaseGeneration ownerLeaseGeneration,
      String meshName, String routingIdHex, long lifecycleGeneration, StoreVersion version) {

    /**
     * The view of a decoded row.
     *
     * @param key the object.
     * @param r the row.
     * @param version its StoreVersion.
     * @return the view.
     */
    public static LocationView of(final ObjectKey key, final AuthorityRecord r, final StoreVersion version) {
      final AuthorityRecord.Allocation a = r.allocation();
      return new LocationView(key, a.objectKind(), a.stableType(), a.state() == AuthorityRecord.State.ACTIVE
          ? RecordState.READY : RecordState.CREATING, r.objectGeneration().value(),
          r.authorityOwnerGeneration().value(), r.ownerId(), r.ownerLeaseGeneration(), a.meshName(),
          a.routingIdHex(), a.descriptorLifecycleGeneration(), version);
    }
  }

  /** Outcome of {@link #list}. */
  public sealed interface Listing {
    /**
     * One page.
     *
     * @param entries 0..pageSize entries in id byte order (fewer than pageSize only when a filter dropped
     *     entries or the scan ended).
     * @param continuation the token of the next page, or empty when this was the last.
     */
    record Page(List<LocationView> entries, Optional<ScanCursor> continuation) implements Listing {
      /**
       * Copies the list.
       *
       * @throws NullPointerException when a part is null.
       */
      public Page {
        entries = List.copyOf(entries);
        Objects.requireNonNull(continuation, "continuation");
      }
    }

    /** The continuation expired or belongs to another list (ScanExpired): start again from the first page. */
    record Expired() implements Listing {
    }
  }

  /**
   * The current location of one object; a missing row gives empty and creates nothing (LOC-06). The answer does
   * not depend on any MeshName (LOC-07).
   *
   * @param key kind and global id.
   * @return the view, or empty.
   * @throws SpotkitException.Unavailable when the store fails.
   * @throws RecordDecodeException when the row is unreadable.
   */
  public Optional<LocationView> locate(final ObjectKey key) {
    final ReadResult read = StoreCalls.await(store.read(key.logicalKey().preimage()), timeout,
        "read of " + key.logicalKey());
    return read instanceof ReadResult.Found found
        ? Optional.of(LocationView.of(key, AggregateAuthority.effective(store, AuthorityRecord.decode(found.value()),
            timeout), found.version()))
        : Optional.empty();
  }

  /**
   * Whether the owner host run a row names still holds its owner lease (spec 002 section 3.1): the lease record
   * exists, belongs to the row's OwnerId and LeaseGeneration, and has not expired by StoreNow. A Ready row whose
   * owner fails this is reported Unavailable by the operator query (spec 002 section 7.4, "current owner
   * unavailable after commit").
   *
   * @param view a row read by {@link #locate} or {@link #list}.
   * @return true while the owner's lease is valid.
   * @throws SpotkitException.Unavailable when the store fails.
   */
  public boolean ownerLeaseValid(final LocationView view) {
    return Leases.check(store, view.ownerId(), view.ownerLeaseGeneration(), timeout).valid();
  }

  /**
   * One page of the rows of one kind.
   *
   * @param kind actor or spot (a paged list requires the kind).
   * @param stableType only this stable type, or empty for all.
   * @param meshName only rows placed in this mesh, or empty for all.
   * @param pageSize 1..1000 entries.
   * @param continuation empty for the first page, then the previous page's continuation, with the same filters.
   * @return a Page, or Expired.
   * @throws IllegalArgumentException when the page size is outside 1..1000.
   * @throws SpotkitException.Unavailable when the store fails (no partial page).
   * @throws RecordDecodeException when a row is unreadable.
   */
  public Listing list(final AuthorityKind kind, final Optional<String> stableType, final Optional<String> meshName,
      final int pageSize, final Optional<ScanCursor> continuation) {
    if (pageSize < 1 || pageSize > StoreLimits.MAX_SCAN_ENTRIES) {
      throw new IllegalArgumentException("page size " + pageSize + " is outside 1.." + StoreLimits.MAX_SCAN_ENTRIES);
    }
    final String prefix = LocationKeys.authorityPrefix(kind);
    final List<LocationView> out = new ArrayList<>();
    final java.util.Map<String, Optional<AggregateRecord>> aggregates = new java.util.HashMap<>();
    Optional<ScanCursor> cursor = continuation;
    for (int page = 0; page < MAX_STORE_PAGES_PER_LIST && out.size() < pageSize; page++) {
      final ScanResult result = StoreCalls.await(store.scan(new ScanRequest(prefix, cursor,
          pageSize - out.size())), timeout, "scan of " + StoreLimits.printable(prefix));
      if (!(result instanceof ScanResult.Page p)) {
        return new Listing.Expired();
      }
      for (ScanEntry entry : p.entries()) {
        final ObjectKey key = new ObjectKey(kind, entry.key().substring(prefix.length()));
        final LocationView view = LocationView.of(key, effective(AuthorityRecord.decode(entry.value()), aggregates),
            entry.version());
        if (stableType.map(view.stableType()::equals).orElse(true)
            && meshName.map(view.meshName()::equals).orElse(true)) {
          out.add(view);
        }
      }
      cursor = p.next();
      if (cursor.isEmpty()) {
        break;
      }
    }
    return new Listing.Page(out, cursor);
  }

  /**
   * A member row that points at its room's aggregate names the aggregate's owner ({@link AggregatePointer}): after
   * a room moved, its members' own rows still name the old node, so the query follows the pointer (one read per
   * room per call), as routing does.
   */
  private AuthorityRecord effective(final AuthorityRecord row,
      final java.util.Map<String, Optional<AggregateRecord>> aggregates) {
    final Optional<String> spot = AggregatePointer.spotOf(row.payload());
    if (spot.isEmpty()) {
      return row;
    }
    final Optional<AggregateRecord> aggregate = aggregates.computeIfAbsent(spot.get(), id -> {
      final ReadResult r = StoreCalls.await(store.read(LocationKeys.aggregate(id).preimage()), timeout,
          "read of the aggregate of Spot '" + id + "'");
      return r instanceof ReadResult.Found f ? Optional.of(AggregateRecord.decode(f.value())) : Optional.empty();
    });
    return aggregate.map(a -> AggregateAuthority.follow(row, a)).orElse(row);
  }
}
