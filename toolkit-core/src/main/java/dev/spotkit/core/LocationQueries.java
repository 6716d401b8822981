package dev.spotkit.core;

import java.util.Optional;

/**
 * The operator query of spec 002 section 7.4: the current location of one object by global id, and a list of
 * one object kind (optionally one stable type and one MeshName) read in pages. Get it from
 * {@link MeshNode#locations()}. Every call reads the Location Store; nothing is cached, and a missing object or a
 * store error is never remembered as "does not exist". The answers are for operational status only: never use
 * them as a message target list or a placement condition. There is deliberately no call returning the whole set
 * at once.
 *
 * <pre>{@code
 * LocationQueries q = node.locations();
 * Optional<ObjectLocation> alice = q.locate(ObjectKind.ACTOR, "alice");
 * String next = null;
 * do {
 *   LocationPage page = q.list(ObjectKind.SPOT, "room", 200, next);
 *   page.entries().forEach(System.out::println);
 *   next = page.continuation().orElse(null);
 * } while (next != null);
 * }</pre>
 *
 * <p>Blocking: each call waits for the store at most the node's request timeout per store call (a list call
 * reads at most 64 store pages); call it from a virtual thread or an operator tool, not from a Netty event loop.
 * Thread-safety: any thread. Not implemented by applications (sealed).
 */
public sealed interface LocationQueries permits LocationQueriesImpl {

  /** Largest page size of {@link #list}: 1,000 entries (spec 002 section 6.2, LOC-08). */
  int MAX_PAGE_SIZE = 1000;

  /**
   * The current location of one object. The answer depends only on the kind and the global id, not on any
   * MeshName (LOC-07). A missing object gives empty and creates nothing; an object still being created is
   * returned with {@link ObjectLocation.State#CREATING}; a created object whose owner node's lease lapsed with
   * {@link ObjectLocation.State#UNAVAILABLE}, still on that owner (spec 002 section 7.4; one lease read per owner).
   *
   * @param kind Actor or Spot.
   * @param id the global ActorId or SpotId, 1..255 UTF-8 bytes without NUL.
   * @return the location, or empty when there is none.
   * @throws SpotkitException.InvalidOperation when the kind is null or the id is not a valid id.
   * @throws SpotkitException.NotConfigured when this node has no object role (no Location Store).
   * @throws SpotkitException.ShuttingDown once the node's close started.
   * @throws SpotkitException.Unavailable when the store failed or did not answer within the request timeout.
   * @throws SpotkitException.DataLost when the stored row cannot be decoded.
   */
  Optional<ObjectLocation> locate(ObjectKind kind, String id);

  /**
   * One page of the objects of one kind, in id byte order (spec 002 sections 6.2 and 7.4). The first call
   * (continuation null) starts a same-point-in-time list; later calls pass the previous page's continuation and
   * the same kind and filters, and read on from that same list: objects created, moved or deleted during the
   * cycle may only show in the next cycle, and no id appears twice in one cycle.
   *
   * @param kind Actor or Spot (required).
   * @param stableTypeOrNull only objects of this stable type, or null for every type.
   * @param pageSize 1..{@value #MAX_PAGE_SIZE} entries.
   * @param continuationOrNull null for the first page, else the previous page's continuation, unchanged.
   * @return the page; its continuation is empty on the last page.
   * @throws SpotkitException.InvalidOperation when the kind is null, the page size is outside
   *     1..{@value #MAX_PAGE_SIZE}, or the continuation is expired (the list was idle too long, or already
   *     read to its end), belongs to another list read, or was not issued by this API: the message then names
   *     ScanExpired, and the fix is to start again with a null continuation.
   * @throws SpotkitException.NotConfigured when this node has no object role (no Location Store).
   * @throws SpotkitException.ShuttingDown once the node's close started.
   * @throws SpotkitException.Unavailable when the store failed or did not answer in time (no partial page).
   * @throws SpotkitException.DataLost when a stored row cannot be decoded.
   */
  LocationPage list(ObjectKind kind, String stableTypeOrNull, int pageSize, String continuationOrNull);

  /**
   * Same as {@link #list(ObjectKind, String, int, String)}, filtered also by the owner node's MeshName.
   *
   * @param kind Actor or Spot (required).
   * @param stableTypeOrNull only objects of this stable type, or null for every type.
   * @param meshNameOrNull only objects whose owner node is in this mesh, or null for every mesh.
   * @param pageSize 1..{@value #MAX_PAGE_SIZE} entries.
   * @param continuationOrNull null for the first page, else the previous page's continuation, unchanged.
   * @return the page; its continuation is empty on the last page.
   * @throws SpotkitException.InvalidOperation as {@link #list(ObjectKind, String, int, String)}.
   * @throws SpotkitException.NotConfigured when this node has no object role (no Location Store).
   * @throws SpotkitException.ShuttingDown once the node's close started.
   * @throws SpotkitException.Unavailable when the store failed or did not answer in time (no partial page).
   * @throws SpotkitException.DataLost when a stored row cannot be decoded.
   */
  LocationPage list(ObjectKind kind, String stableTypeOrNull, MeshName meshNameOrNull, int pageSize,
      String continuationOrNull);
}
