package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.Ids;

/**
 * Name of one physical connection group of MeshNodes: decides where objects are first placed; not part of
 * any authority key (spec 000 section 1). UTF-8, 1..255 bytes, no NUL.
 *
 * @param value the name.
 */
public record MeshName(String value) {

  /**
   * Validates the name.
   *
   * @throws SpotkitException.InvalidOperation when null, empty, over 255 UTF-8 bytes, or containing NUL.
   */
  public MeshName {
    Ids.requireValid("MeshName", value);
  }

  @Override
  public String toString() {
    return value;
  }
}
