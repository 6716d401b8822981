package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.Ids;

/**
 * An Actor's global logical key: UTF-8, 1..255 bytes, no NUL byte, compared byte for byte with no case folding or
 * normalisation
 * (FACTS.md "Identity and execution"; spec 000 section 1). Global across the Location Store namespace;
 * MeshName is not part of it.
 *
 * @param value the id text.
 */
public record ActorId(String value) {

  /**
   * Validates the id.
   *
   * @throws SpotkitException.InvalidOperation when null, empty, longer than 255 UTF-8 bytes, or containing
   *     NUL; the message gives the offending length and the limit.
   */
  public ActorId {
    Ids.requireValid("ActorId", value);
  }

  /**
   * Same as the constructor.
   *
   * @param value the id text.
   * @return the id.
   * @throws SpotkitException.InvalidOperation as the constructor.
   */
  public static ActorId of(final String value) {
    return new ActorId(value);
  }

  @Override
  public String toString() {
    return value;
  }
}
