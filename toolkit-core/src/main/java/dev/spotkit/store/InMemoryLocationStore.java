package dev.spotkit.store;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An explicit Location Store for one process: the embedded store of demos and most tests (DESIGN.md
 * "Location and stores"). Nothing creates it for you: an object role without a store refuses to start
 * (MEM-01).
 *
 * <p>One lock guards the records, the version counter and the generation sequence, so every
 * {@link #write(List, List)} is all-or-nothing and linearizable. Thread-safety: any thread; calls never
 * block beyond that short lock.
 *
 * <pre>{@code
 * LocationStore store = new InMemoryLocationStore();
 * MeshNode node = MeshNode.builder().locationStore(store)...start();
 * }</pre>
 */
public final class InMemoryLocationStore implements LocationStore {

  private static final long MAX_GENERATION = Long.MAX_VALUE;

  private final Object lock = new Object();
  private final Map<ObjectKey, Stored> records = new HashMap<>();
  private long lastGeneration;
  private long lastVersion;
  private long writes;

  /** An empty store whose first ObjectGeneration is 1. */
  public InMemoryLocationStore() {
    this(0);
  }

  private InMemoryLocationStore(final long lastGeneration) {
    this.lastGeneration = lastGeneration;
  }

  /**
   * An empty store whose generation sequence continues after {@code lastIssued}: for tests of
   * GenerationExhausted (LOC-02).
   *
   * @param lastIssued 0..2^63-1; the next issued generation is {@code lastIssued + 1}.
   * @return the store.
   * @throws IllegalArgumentException when negative.
   */
  public static InMemoryLocationStore withLastGeneration(final long lastIssued) {
    if (lastIssued < 0) {
      throw new IllegalArgumentException("lastIssued " + lastIssued + " must be 0..2^63-1");
    }
    return new InMemoryLocationStore(lastIssued);
  }

  @Override
  public long issueObjectGeneration() {
    synchronized (lock) {
      if (lastGeneration == MAX_GENERATION) {
        throw new GenerationExhaustedException("ObjectGeneration sequence exhausted: " + MAX_GENERATION
            + " (2^63-1) was already issued");
      }
      return ++lastGeneration;
    }
  }

  @Override
  public Optional<Stored> read(final ObjectKey key) {
    synchronized (lock) {
      return Optional.ofNullable(records.get(key));
    }
  }

  @Override
  public WriteResult write(final List<Condition> conditions, final List<Mutation> mutations) {
    requireDistinct("conditions", conditions.stream().map(Condition::key).toList());
    requireDistinct("mutations", mutations.stream().map(Mutation::key).toList());
    synchronized (lock) {
      for (Condition condition : conditions) {
        if (!holds(condition)) {
          return new WriteResult.Conflict();
        }
      }
      final Map<ObjectKey, Long> versions = new HashMap<>();
      for (Mutation mutation : mutations) {
        switch (mutation) {
          case Mutation.Put put -> {
            final long version = ++lastVersion;
            records.put(put.key(), new Stored(put.record(), version));
            versions.put(put.key(), version);
          }
          case Mutation.Delete delete -> records.remove(delete.key());
        }
      }
      writes++;
      return new WriteResult.Applied(versions);
    }
  }

  /**
   * Number of records now.
   *
   * @return the count; any thread.
   */
  public int size() {
    synchronized (lock) {
      return records.size();
    }
  }

  /**
   * Number of applied writes so far (conflicts not counted): lets a test prove that an operation changed
   * nothing in the store (MEM-17).
   *
   * @return the count; any thread.
   */
  public long appliedWrites() {
    synchronized (lock) {
      return writes;
    }
  }

  private boolean holds(final Condition condition) {
    final Stored current = records.get(condition.key());
    return switch (condition) {
      case Condition.Missing missing -> current == null;
      case Condition.VersionIs is -> current != null && current.version() == is.version();
    };
  }

  private static void requireDistinct(final String what, final List<ObjectKey> keys) {
    final Set<ObjectKey> seen = new HashSet<>();
    for (ObjectKey key : keys) {
      if (!seen.add(key)) {
        throw new IllegalArgumentException("key " + key + " appears twice among " + what);
      }
    }
  }

  @Override
  public String toString() {
    return "InMemoryLocationStore[records=" + size() + "]";
  }
}
