package dev.spotkit.store;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One all-or-nothing conditional write (FACTS.md "Location Store provider contract"): every condition is
 * checked first; then every mutation applies, or none does.
 *
 * <p>Limits, checked here, before anything is sent: at most {@value StoreLimits#MAX_BATCH_KEYS} distinct keys
 * over conditions and mutations together, at most 4 MiB of key, version and value bytes, no key twice among
 * the conditions nor twice among the mutations (a key may have one condition and one mutation), and at least
 * one operation.
 *
 * @param conditions checked before any change.
 * @param mutations applied in order when every condition holds.
 */
public record WriteBatch(List<Condition> conditions, List<Mutation> mutations) {

  /**
   * Copies the lists and checks the limits.
   *
   * @throws StoreLimitException when a limit is broken.
   * @throws IllegalArgumentException when the batch is empty.
   */
  public WriteBatch {
    conditions = List.copyOf(conditions);
    mutations = List.copyOf(mutations);
    if (conditions.isEmpty() && mutations.isEmpty()) {
      throw new IllegalArgumentException("a write batch needs at least one condition or mutation");
    }
    final Set<String> all = new HashSet<>();
    final Set<String> seen = new HashSet<>();
    long bytes = 0;
    for (Condition condition : conditions) {
      requireOnce(seen, condition.key(), "conditions");
      bytes += StoreLimits.utf8Length("store key", condition.key());
      if (condition instanceof Condition.ExpectVersion expect) {
        bytes += StoreLimits.utf8Length("store version", expect.version().value());
      }
      all.add(condition.key());
    }
    seen.clear();
    for (Mutation mutation : mutations) {
      requireOnce(seen, mutation.key(), "mutations");
      bytes += StoreLimits.utf8Length("store key", mutation.key());
      if (mutation instanceof Mutation.Put put) {
        bytes += put.value().size();
      }
      all.add(mutation.key());
    }
    if (all.size() > StoreLimits.MAX_BATCH_KEYS) {
      throw new StoreLimitException("write batch keys", all.size(), StoreLimits.MAX_BATCH_KEYS, "write batch"
          + " touches " + all.size() + " distinct keys, over the limit of " + StoreLimits.MAX_BATCH_KEYS
          + "; split it into several batches");
    }
    if (bytes > StoreLimits.MAX_BATCH_BYTES) {
      throw new StoreLimitException("write batch bytes", bytes, StoreLimits.MAX_BATCH_BYTES, "write batch of "
          + bytes + " bytes exceeds the limit of " + StoreLimits.MAX_BATCH_BYTES
          + " bytes (4 MiB); split it into several batches");
    }
  }

  /**
   * A batch of conditions and mutations.
   *
   * @param conditions the conditions.
   * @param mutations the mutations.
   * @return the checked batch.
   */
  public static WriteBatch of(final List<Condition> conditions, final List<Mutation> mutations) {
    return new WriteBatch(conditions, mutations);
  }

  /**
   * An unconditional batch.
   *
   * @param mutations the mutations.
   * @return the checked batch.
   */
  public static WriteBatch unconditional(final Mutation... mutations) {
    return new WriteBatch(List.of(), List.of(mutations));
  }

  private static void requireOnce(final Set<String> seen, final String key, final String where) {
    if (!seen.add(key)) {
      throw new StoreLimitException("operations per key", 2, 1, "key '" + StoreLimits.printable(key)
          + "' appears twice among the " + where + " of one write batch; give each key at most one");
    }
  }
}
