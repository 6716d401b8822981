package dev.spotkit.store;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The Location Store SPI: where the framework records, for every Actor and Spot, its current owner, its
 * ObjectGeneration and (for an Actor) the Spot it belongs to (spec 000 section 1, spec 002 sections 2-3).
 *
 * <p>This package imports nothing else of Spotkit, so a provider implements it without touching actors or
 * spots (spec 002 section 2.1; kept by an ArchUnit rule). The framework builds the records; a provider only
 * checks conditions and stores values.
 *
 * <p>Contract (FACTS.md "Location Store provider contract", reduced to what one node needs today):
 * <ul>
 *   <li>{@link #read(ObjectKey)} never creates anything and never issues a generation;</li>
 *   <li>{@link #write(List, List)} checks every condition first, then applies every mutation, or none;</li>
 *   <li>{@link #issueObjectGeneration()} draws from one store-wide monotonic sequence 1..2^63-1.</li>
 * </ul>
 * Thread-safety: implementations are safe for use from any thread. Calls may block (a remote store does
 * I/O); the framework never calls them on a Netty event loop.
 */
public interface LocationStore {

  /**
   * Issues the next ObjectGeneration from the store-wide monotonic sequence.
   *
   * @return a value in 1..2^63-1, larger than every value issued before by this store.
   * @throws GenerationExhaustedException when the sequence already issued 2^63-1; the store is unchanged.
   */
  long issueObjectGeneration();

  /**
   * Reads the current record of one object.
   *
   * @param key the object's kind and id.
   * @return the record with its version, or empty when there is none (Missing).
   */
  Optional<Stored> read(ObjectKey key);

  /**
   * All-or-nothing conditional write: every condition is checked first; then every mutation applies, or
   * none does.
   *
   * @param conditions checked before any change; no key twice.
   * @param mutations applied in order when every condition holds; no key twice.
   * @return {@link WriteResult.Applied} with the new version of each put key, or {@link WriteResult.Conflict}
   *     (with no detail) when a condition did not hold.
   * @throws IllegalArgumentException when a key appears twice among conditions or among mutations.
   */
  WriteResult write(List<Condition> conditions, List<Mutation> mutations);

  /**
   * A record with the opaque version the store gave it.
   *
   * @param record the value.
   * @param version changes on every put of this key; compare it in a {@link Condition.VersionIs}.
   */
  record Stored(LocationRecord record, long version) {
    /** Checks for null. */
    public Stored {
      Objects.requireNonNull(record, "record");
    }
  }

  /** A precondition of {@link #write(List, List)}. */
  sealed interface Condition {
    /**
     * The key the condition is about.
     *
     * @return the key.
     */
    ObjectKey key();

    /**
     * Holds when the key has no record.
     *
     * @param key the object.
     */
    record Missing(ObjectKey key) implements Condition {
      /** Checks for null. */
      public Missing {
        Objects.requireNonNull(key, "key");
      }
    }

    /**
     * Holds when the key's record has exactly this version.
     *
     * @param key the object.
     * @param version the version read earlier.
     */
    record VersionIs(ObjectKey key, long version) implements Condition {
      /** Checks for null. */
      public VersionIs {
        Objects.requireNonNull(key, "key");
      }
    }
  }

  /** A change applied by {@link #write(List, List)}. */
  sealed interface Mutation {
    /**
     * The key the mutation changes.
     *
     * @return the key.
     */
    ObjectKey key();

    /**
     * Stores {@code record} under its key, replacing any earlier value.
     *
     * @param record the new value.
     */
    record Put(LocationRecord record) implements Mutation {
      /** Checks for null. */
      public Put {
        Objects.requireNonNull(record, "record");
      }

      @Override
      public ObjectKey key() {
        return record.key();
      }
    }

    /**
     * Removes the key's record; removing a missing key is not an error.
     *
     * @param key the object.
     */
    record Delete(ObjectKey key) implements Mutation {
      /** Checks for null. */
      public Delete {
        Objects.requireNonNull(key, "key");
      }
    }
  }

  /** Outcome of {@link #write(List, List)}. */
  sealed interface WriteResult {
    /**
     * Every mutation applied.
     *
     * @param versions the new version of each put key.
     */
    record Applied(Map<ObjectKey, Long> versions) implements WriteResult {
      /** Copies the map. */
      public Applied {
        versions = Map.copyOf(versions);
      }
    }

    /** A condition did not hold; nothing changed. */
    record Conflict() implements WriteResult {
    }
  }
}
