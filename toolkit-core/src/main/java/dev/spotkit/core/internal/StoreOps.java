package dev.spotkit.core.internal;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.GenerationExhaustedException;
import dev.spotkit.store.LocationRecord;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.LocationStore.Condition;
import dev.spotkit.store.LocationStore.Mutation;
import dev.spotkit.store.LocationStore.WriteResult;
import dev.spotkit.store.RecordState;
import java.util.List;

/**
 * The runtime's writes to the Location Store, with store failures mapped to typed errors. Each cell's record
 * version is tracked on the cell; a cell's writes are serialized by its lifecycle (creation, join chain,
 * close), so one writer at a time per record.
 */
final class StoreOps {
  private final LocationStore store;
  private final String owner;

  StoreOps(final LocationStore store, final String owner) {
    this.store = store;
    this.owner = owner;
  }

  LocationStore store() {
    return store;
  }

  long issueGeneration() {
    try {
      return store.issueObjectGeneration();
    } catch (GenerationExhaustedException e) {
      throw new SpotkitException.GenerationExhausted(e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new SpotkitException.Unavailable("location store failed to issue an ObjectGeneration: " + e, e);
    }
  }

  /** Missing to CREATING: the one creator of this id wins. */
  void reserve(final Cell cell, final String membership) {
    final LocationRecord record = new LocationRecord(cell.key, cell.generation, cell.stableType, owner,
        membership, RecordState.CREATING);
    final WriteResult result = write(List.of(new Condition.Missing(cell.key)), List.of(new Mutation.Put(record)));
    if (result instanceof WriteResult.Applied applied) {
      cell.storeVersion = applied.versions().get(cell.key);
      cell.storeRecord = record;
    } else {
      throw new SpotkitException.AlreadyExists(cell.describe() + " already has a location record; another"
          + " creator holds this id");
    }
  }

  /** Writes the cell's next record, conditional on the version this node last wrote. */
  void update(final Cell cell, final LocationRecord next) {
    final List<Condition> conditions = cell.storeRecord == null ? List.of(new Condition.Missing(cell.key))
        : List.of(new Condition.VersionIs(cell.key, cell.storeVersion));
    final WriteResult result = write(conditions, List.of(new Mutation.Put(next)));
    if (result instanceof WriteResult.Applied applied) {
      cell.storeVersion = applied.versions().get(cell.key);
      cell.storeRecord = next;
    } else {
      throw new SpotkitException.Unavailable("the location record of " + cell.describe()
          + " changed under this node (expected version " + cell.storeVersion + ")");
    }
  }

  /** The cell's first record when no reservation was needed (the Entry Spot). */
  LocationRecord readyRecord(final Cell cell, final String membership) {
    return new LocationRecord(cell.key, cell.generation, cell.stableType, owner, membership, RecordState.READY);
  }

  /** Deletes the cell's record if this node wrote one; never throws. */
  void remove(final Cell cell) {
    if (cell.storeRecord == null) {
      return;
    }
    try {
      write(List.of(new Condition.VersionIs(cell.key, cell.storeVersion)), List.of(new Mutation.Delete(cell.key)));
      cell.storeRecord = null;
    } catch (RuntimeException e) {
      NodeRuntime.LOG.warn("could not delete the location record of {}", cell.describe(), e);
    }
  }

  private WriteResult write(final List<Condition> conditions, final List<Mutation> mutations) {
    try {
      return store.write(conditions, mutations);
    } catch (RuntimeException e) {
      throw new SpotkitException.Unavailable("location store write failed: " + e, e);
    }
  }
}
