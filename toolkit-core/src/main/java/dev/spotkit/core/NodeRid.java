package dev.spotkit.core;

/**
 * A MeshNode's RoutingId: a random non-zero 64-bit value drawn at node start, so a restarted node has a
 * new one (FACTS.md "Identity and execution").
 *
 * @param value non-zero.
 */
public record NodeRid(long value) {

  /**
   * Validates the value.
   *
   * @throws SpotkitException.InvalidOperation when zero.
   */
  public NodeRid {
    if (value == 0) {
      throw new SpotkitException.InvalidOperation("NodeRid must be non-zero");
    }
  }

  /**
   * Lowercase hex, 16 digits.
   *
   * @return for example {@code 00f3a9c2d4e5b6a7}.
   */
  public String hex() {
    return String.format("%016x", value);
  }

  @Override
  public String toString() {
    return hex();
  }
}
