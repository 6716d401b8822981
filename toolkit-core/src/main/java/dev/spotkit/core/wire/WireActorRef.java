package dev.spotkit.core.wire;

/**
 * {@code actor-ref} on the wire: the Actor id (text8) and its ObjectGeneration (nonzero-u64).
 *
 * @param actorId UTF-8, 1..255 bytes, no NUL.
 * @param objectGeneration 1..2^63-1.
 */
public record WireActorRef(String actorId, long objectGeneration) {

  /**
   * Validates the values.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public WireActorRef {
    Checks.text8("actorId", actorId);
    Checks.positive("objectGeneration", objectGeneration);
  }

  static WireActorRef read(final WireReader in, final String field) {
    final String id = in.text8(field + ".actorId");
    final long generation = in.nonZeroU64(field + ".objectGeneration");
    return new WireActorRef(id, generation);
  }

  void writeTo(final WireWriter out) {
    out.text8(actorId);
    out.u64(objectGeneration);
  }
}
