package dev.spotkit.relocation.sim;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Location Store of the aggregate world (spec 002 sections 1.2, 8.1, 8.2; spec 000 section 7): one aggregate
 * record (version, owner, AggregateId, generation, inventory root), the inventory trees by root, the Spot's row and
 * each actor's own row. A member row the seal pointed at the aggregate takes its owner from the aggregate ("the
 * current owner of an Actor belonging to a SpotWide User Spot follows the User Spot aggregate authority"); the
 * Spot's owner is the aggregate's. Linearizable: the world applies one call at a time.
 */
final class AggregateStore {
  static final String A = "node-a";
  static final String B = "node-b";

  /** What a read of the aggregate record returns. */
  record Snapshot(int version, String owner, String aggregateId, String inventoryRoot) {
  }

  int version = 1;
  String owner = A;
  String aggregateId = "";
  int generation = 1;
  String inventoryRoot = "";
  final Map<String, List<String>> trees = new HashMap<>();
  final Map<String, String> ownRows = new HashMap<>();
  final Set<String> pointed = new HashSet<>();
  /** How many times the aggregate CAS applied (MEM-21: one commit per move). */
  int commits;

  Snapshot read() {
    return new Snapshot(version, owner, aggregateId, inventoryRoot);
  }

  /** The effective owner of a participant key, or null when it has no row. */
  String ownerOf(final String key) {
    if (key.equals(AggregateWorld.SPOT) || pointed.contains(key)) {
      return owner;
    }
    return ownRows.get(key);
  }

  /**
   * The seal's store write ({@code AggregateAuthority.seal}): the inventory tree stored immutably, every member row
   * pointed at the aggregate, the aggregate's version moved; no owner changes.
   */
  void seal(final String root, final List<String> keys) {
    trees.put(root, List.copyOf(keys));
    for (final String k : keys) {
      if (!k.equals(AggregateWorld.SPOT)) {
        pointed.add(k);
      }
    }
    version++;
  }

  /** The target's one CAS: owner, generation and inventory root together, only at the sealed version. */
  boolean commit(final int expectedVersion, final String id, final String root, final String newOwner) {
    if (version != expectedVersion) {
      return false;
    }
    version++;
    owner = newOwner;
    aggregateId = id;
    generation++;
    inventoryRoot = root;
    commits++;
    return true;
  }
}
