package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.Ids;
import dev.spotkit.core.location.AuthorityKind;
import dev.spotkit.core.location.LocationQuery;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.RecordDecodeException;
import dev.spotkit.core.location.RecordState;
import dev.spotkit.store.ScanCursor;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreLimitException;
import dev.spotkit.store.StoreLimits;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * {@link LocationQueries} over {@link LocationQuery} (spec 002 section 7.4): maps the public kinds, filters and the
 * opaque String continuation (Base64url of the provider's scan cursor, never interpreted) onto the location
 * package's query, and its results onto public records. Stateless apart from the query; any thread.
 */
final class LocationQueriesImpl implements LocationQueries {
  private final LocationQuery query;
  private final BooleanSupplier closing;
  private final String node;

  /**
   * A query facade.
   *
   * @param query the query over the node's Location Store, or null when the node has no object role.
   * @param closing true once the node's close started.
   * @param node the node, for messages.
   */
  LocationQueriesImpl(final LocationQuery query, final BooleanSupplier closing, final String node) {
    this.query = query;
    this.closing = closing;
    this.node = node;
  }

  @Override
  public Optional<ObjectLocation> locate(final ObjectKind kind, final String id) {
    final AuthorityKind authority = authority(kind);
    Ids.requireValid(kind == ObjectKind.ACTOR ? "ActorId" : "SpotId", id);
    final LocationQuery q = ready("locate");
    try {
      return q.locate(new ObjectKey(authority, id)).map(v -> location(v, ownerLeases(q)));
    } catch (RecordDecodeException e) {
      throw new SpotkitException.DataLost("the location of " + kind + " '" + id + "' cannot be decoded: "
          + e.getMessage(), e);
    }
  }

  @Override
  public LocationPage list(final ObjectKind kind, final String stableTypeOrNull, final int pageSize,
      final String continuationOrNull) {
    return list(kind, stableTypeOrNull, null, pageSize, continuationOrNull);
  }

  @Override
  public LocationPage list(final ObjectKind kind, final String stableTypeOrNull, final MeshName meshNameOrNull,
      final int pageSize, final String continuationOrNull) {
    final AuthorityKind authority = authority(kind);
    if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw new SpotkitException.InvalidOperation("page size " + pageSize + " is outside 1.." + MAX_PAGE_SIZE
          + " (spec 002 section 6.2); read larger sets page by page with the continuation");
    }
    final Optional<ScanCursor> cursor = cursor(continuationOrNull);
    final LocationQuery q = ready("list");
    final LocationQuery.Listing listing;
    try {
      listing = q.list(authority, Optional.ofNullable(stableTypeOrNull),
          Optional.ofNullable(meshNameOrNull).map(MeshName::value), pageSize, cursor);
    } catch (RecordDecodeException e) {
      throw new SpotkitException.DataLost("a location row of kind " + kind + " cannot be decoded: "
          + e.getMessage(), e);
    }
    final Predicate<LocationQuery.LocationView> ownerLeaseValid = ownerLeases(q);
    return switch (listing) {
      case LocationQuery.Listing.Page page -> new LocationPage(page.entries().stream()
          .map(v -> location(v, ownerLeaseValid)).toList(), page.continuation().map(c ->
          Base64.getUrlEncoder().withoutPadding().encodeToString(c.token().toByteArray())));
      case LocationQuery.Listing.Expired expired -> throw scanExpired("is expired (the list was idle too long or"
          + " was already read to its end) or belongs to another list read");
    };
  }

  private static AuthorityKind authority(final ObjectKind kind) {
    if (kind == null) {
      throw new SpotkitException.InvalidOperation("object kind must not be null; pass ObjectKind.ACTOR or"
          + " ObjectKind.SPOT (spec 002 section 7.4)");
    }
    return kind == ObjectKind.ACTOR ? AuthorityKind.ACTOR : AuthorityKind.SPOT;
  }

  private LocationQuery ready(final String call) {
    if (query == null) {
      throw new SpotkitException.NotConfigured(call + " of the location query on " + node + ": the node has no"
          + " object role and no Location Store; build it with locationStore(...) and objectServer(...) or"
          + " objectClient()");
    }
    if (closing.getAsBoolean()) {
      throw new SpotkitException.ShuttingDown(call + " of the location query on " + node + ": the node is"
          + " closing");
    }
    return query;
  }

  private static Optional<ScanCursor> cursor(final String continuation) {
    if (continuation == null) {
      return Optional.empty();
    }
    final byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(continuation);
    } catch (IllegalArgumentException e) {
      throw scanExpired("was not issued by list() (not Base64url)");
    }
    if (bytes.length < 1 || bytes.length > StoreLimits.MAX_CURSOR_BYTES) {
      throw scanExpired("was not issued by list() (" + bytes.length + " bytes, outside 1.."
          + StoreLimits.MAX_CURSOR_BYTES + ")");
    }
    try {
      return Optional.of(new ScanCursor(StoreBytes.of(bytes)));
    } catch (StoreLimitException e) {
      throw scanExpired("was not issued by list()");
    }
  }

  private static SpotkitException.InvalidOperation scanExpired(final String why) {
    return new SpotkitException.InvalidOperation("ScanExpired: the continuation " + why + "; start the list"
        + " again with a null continuation (spec 002 section 6.2)");
  }

  /** Owner lease checks of one call, one store read per owner host run however many rows name it. */
  private static Predicate<LocationQuery.LocationView> ownerLeases(final LocationQuery q) {
    final Map<String, Boolean> checked = new HashMap<>();
    return v -> checked.computeIfAbsent(v.ownerId() + "/" + v.ownerLeaseGeneration(), k -> q.ownerLeaseValid(v));
  }

  private static ObjectLocation location(final LocationQuery.LocationView v,
      final Predicate<LocationQuery.LocationView> ownerLeaseValid) {
    final ObjectLocation.State state = v.state() != RecordState.READY ? ObjectLocation.State.CREATING
        : ownerLeaseValid.test(v) ? ObjectLocation.State.READY : ObjectLocation.State.UNAVAILABLE;
    return new ObjectLocation(v.key().kind() == AuthorityKind.ACTOR ? ObjectKind.ACTOR : ObjectKind.SPOT,
        v.key().id(), new ObjectGeneration(v.objectGeneration()), v.stableType(), state,
        new MeshName(v.meshName()), owner(v));
  }

  private static NodeRid owner(final LocationQuery.LocationView v) {
    try {
      return new NodeRid(Long.parseUnsignedLong(v.routingIdHex(), 16));
    } catch (NumberFormatException | SpotkitException.InvalidOperation e) {
      throw new SpotkitException.DataLost("the location of " + v.key().logicalKey() + " names owner RoutingId '"
          + v.routingIdHex() + "', which is not a NodeRid (1..16 hex digits, non-zero)", e);
    }
  }
}
