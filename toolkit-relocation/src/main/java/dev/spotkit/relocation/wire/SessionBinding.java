package dev.spotkit.relocation.wire;

/**
 * Which Session-Actor binding a session-relocation frame is about: every command 42, 43 and 44 carries these
 * five values, and a Session owner applies a frame only to the binding they name (FACTS.md "Sessions": current
 * session and SessionRid, binding generation, ActorId and ObjectGeneration; spec 000 MEM-39). Other Actors bound
 * to the same session have other bindings and are not affected (spec 001 section 4.1). Not a wire unit of its own:
 * the frames carry ActorId and ObjectGeneration before, and the session values after, other fields.
 *
 * @param sessionOwner the Session owner holding the physical connection.
 * @param sessionRid the session's routing id, 1..255 bytes.
 * @param bindingGeneration the binding's generation, 1..2^63-1 (a rebind gets a new one).
 * @param actorId the bound ActorId, 1..255 UTF-8 bytes, compared byte for byte.
 * @param objectGeneration the bound Actor's ObjectGeneration, 1..2^63-1 (kept by relocation).
 */
public record SessionBinding(SessionOwner sessionOwner, Rid sessionRid, long bindingGeneration, String actorId,
    long objectGeneration) {

  /**
   * Validates.
   *
   * @throws IllegalArgumentException naming the bad field.
   */
  public SessionBinding {
    Fields.present("sessionOwner", sessionOwner);
    Fields.present("sessionRid", sessionRid);
    Fields.positive("bindingGeneration", bindingGeneration);
    Fields.text8("actorId", actorId);
    Fields.positive("objectGeneration", objectGeneration);
  }
}
