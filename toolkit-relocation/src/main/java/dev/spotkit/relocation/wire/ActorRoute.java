package dev.spotkit.relocation.wire;

/**
 * Where a bound Actor runs, as a Session owner's binding route stores it: the owner node and the owner
 * generations the Actor runs under there (spec 001 section 7; spec 003, "binding route"). Commands 42 and 43
 * carry the route the binding has when it is sealed (the source); a command 44 commit carries the target's.
 * On the wire in commands 42 and 43, in this order:
 *
 * <pre>
 *   nodeRid                   rid (u8 length 1..255, bytes)
 *   nodeGeneration            nonzero-u64
 *   authorityOwnerGeneration  nonzero-u64
 *   ownerLeaseGeneration      nonzero-u64
 * </pre>
 *
 * The command 44 commit orders the same four values differently; see {@link SessionRouteAction.Commit}.
 *
 * @param nodeRid the owner node's rid.
 * @param nodeGeneration that node's run generation, 1..2^63-1.
 * @param authorityOwnerGeneration the Actor's AuthorityOwnerGeneration on that node, 1..2^63-1.
 * @param ownerLeaseGeneration the owner lease generation of that node's owner, 1..2^63-1.
 */
public record ActorRoute(Rid nodeRid, long nodeGeneration, long authorityOwnerGeneration,
    long ownerLeaseGeneration) {

  /**
   * Validates.
   *
   * @throws IllegalArgumentException naming the bad field.
   */
  public ActorRoute {
    Fields.present("nodeRid", nodeRid);
    Fields.positive("nodeGeneration", nodeGeneration);
    Fields.positive("authorityOwnerGeneration", authorityOwnerGeneration);
    Fields.positive("ownerLeaseGeneration", ownerLeaseGeneration);
  }

  void writeTo(final WireOut out) {
    out.rid(nodeRid);
    out.u64(nodeGeneration);
    out.u64(authorityOwnerGeneration);
    out.u64(ownerLeaseGeneration);
  }

  static ActorRoute read(final WireIn in, final String f) {
    final Rid rid = in.rid(f + ".nodeRid");
    final long generation = in.nonZeroU64(f + ".nodeGeneration");
    final long authority = in.nonZeroU64(f + ".authorityOwnerGeneration");
    final long lease = in.nonZeroU64(f + ".ownerLeaseGeneration");
    return new ActorRoute(rid, generation, authority, lease);
  }
}
