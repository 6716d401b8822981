package dev.spotkit.core;

/**
 * Ids that placement put on a chosen node, for multi-node tests: placement picks by weight and capacity, so a test
 * that needs an object on a given node tries ids {@code prefix-0}, {@code prefix-1}, ... (at most 64) until one
 * lands there. The tries that land elsewhere stay created.
 */
public final class Placed {
  /** Ids tried before giving up. */
  static final int TRIES = 64;

  private Placed() {
  }

  /**
   * An actor of {@code type} created through {@code via} that landed on {@code on}.
   *
   * @param on the node it must be on.
   * @param via the node that creates it.
   * @param prefix the id prefix.
   * @param type the registered actor type.
   * @return the id.
   * @throws AssertionError when no try landed on {@code on}.
   */
  public static String actorOn(final MeshNode on, final MeshNode via, final String prefix, final String type) {
    for (int i = 0; i < TRIES; i++) {
      final String id = prefix + "-" + i;
      if (via.actors().getOrCreate(id, type).await().nodeRid().equals(on.nodeRid())) {
        return id;
      }
    }
    throw new AssertionError("placement never chose " + on.nodeRid());
  }

  /**
   * An actor of {@code type} created through {@code on} that landed there.
   *
   * @param on the node.
   * @param prefix the id prefix.
   * @param type the registered actor type.
   * @return the id.
   */
  public static String actorOn(final MeshNode on, final String prefix, final String type) {
    return actorOn(on, on, prefix, type);
  }

  /**
   * A User Spot of type {@code room} created through {@code on} that landed there.
   *
   * @param on the node.
   * @param prefix the id prefix.
   * @return the id.
   * @throws AssertionError when no try landed on {@code on}.
   */
  public static String spotOn(final MeshNode on, final String prefix) {
    for (int i = 0; i < TRIES; i++) {
      final String id = prefix + "-" + i;
      if (on.spots().getOrCreate(id, "room").await().nodeRid().equals(on.nodeRid())) {
        return id;
      }
    }
    throw new AssertionError("placement never chose " + on.nodeRid());
  }
}
