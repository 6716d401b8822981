package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

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
    Checks.RULES.text8("actorId", actorId);
    Checks.RULES.positive("objectGeneration", objectGeneration);
  }

  static WireActorRef read(final WireIn in, final String field) {
    final String id = in.text8(field + ".actorId");
    final long generation = in.nonZeroU64(field + ".objectGeneration");
    return new WireActorRef(id, generation);
  }

  void writeTo(final WireOut out) {
    out.text8(actorId);
    out.u64(objectGeneration);
  }
}
