package dev.spotkit.core.location;

import dev.spotkit.core.ObjectGeneration;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.Condition;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Issuing generations from the counter records (spec 002 section 3.2; FACTS.md "Redis layout"; golden
 * {@code store-record-v1.json} "counterVectors").
 *
 * <p>A counter's value is the next value to issue, as a bare canonical decimal string (no sign, no leading zero,
 * no JSON); an absent counter means 1. Issuing {@code v} puts {@code v+1} under the condition that the counter
 * still has the version (or absence) it was read with, in the same batch as the record the value gates. The
 * stored range is 1..2^63-1; 2^63-1 is the exhausted sentinel, so values are issued in 1..2^63-2. A counter that
 * holds the sentinel gives {@link SpotkitException.GenerationExhausted} and no write at all, on every try
 * (LOC-02).
 *
 * <p>Typical use, inside a read-then-write loop:
 * <pre>{@code
 * Issued next = Generations.prepare(GenerationCounter.OBJECT, store.read(OBJECT_COUNTER.preimage()));
 * store.write(WriteBatch.of(List.of(next.condition(), new ExpectAbsent(authorityKey)),
 *     List.of(next.advance(), Put.of(authorityKey, record))));   // Conflict: re-read both, try again
 * }</pre>
 */
public final class Generations {
  /** The exhausted sentinel, stored and never issued. */
  public static final long SENTINEL = Long.MAX_VALUE;
  /** The largest value ever issued. */
  public static final long MAX_ISSUED = Long.MAX_VALUE - 1;

  private Generations() {
  }

  /**
   * One prepared issuance: the value, and the condition and put that must go into the gating batch.
   *
   * @param counter which counter.
   * @param value the issued value, 1..2^63-2.
   * @param condition the counter is unchanged since it was read.
   * @param advance puts {@code value + 1}.
   */
  public record Issued(GenerationCounter counter, long value, Condition condition, Mutation.Put advance) {

    /**
     * The value as an ObjectGeneration.
     *
     * @return the generation.
     * @throws IllegalStateException when issued by another counter (they never swap, LOC-01).
     */
    public ObjectGeneration objectGeneration() {
      require(GenerationCounter.OBJECT);
      return new ObjectGeneration(value);
    }

    /**
     * The value as an AuthorityOwnerGeneration.
     *
     * @return the generation.
     * @throws IllegalStateException when issued by another counter.
     */
    public AuthorityOwnerGeneration authorityOwnerGeneration() {
      require(GenerationCounter.AUTHORITY_OWNER);
      return new AuthorityOwnerGeneration(value);
    }

    /**
     * The value as a LeaseGeneration.
     *
     * @return the generation.
     * @throws IllegalStateException when issued by another counter.
     */
    public LeaseGeneration leaseGeneration() {
      require(GenerationCounter.OWNER_LEASE);
      return new LeaseGeneration(value);
    }

    private void require(final GenerationCounter expected) {
      if (counter != expected) {
        throw new IllegalStateException("a " + counter.generationName() + " was issued; it is not a "
            + expected.generationName());
      }
    }
  }

  /**
   * Prepares the next value of {@code counter} from a read of its key.
   *
   * @param counter the counter.
   * @param read the result of reading {@code counter.key().preimage()}.
   * @return the issuance to put into the gating batch.
   * @throws SpotkitException.GenerationExhausted when the counter holds the sentinel; nothing to write.
   * @throws RecordDecodeException.Malformed when the counter is not a canonical decimal in 1..2^63-1.
   */
  public static Issued prepare(final GenerationCounter counter, final ReadResult read) {
    final String key = counter.key().preimage();
    return switch (read) {
      case ReadResult.Missing missing -> new Issued(counter, 1, new Condition.ExpectAbsent(key),
          Mutation.Put.of(key, encode(2)));
      case ReadResult.Found found -> {
        final long next = decode(counter, found.value());
        if (next == SENTINEL) {
          throw new SpotkitException.GenerationExhausted(counter.generationName() + " counter "
              + counter.key() + " holds the exhausted sentinel " + SENTINEL + " (2^63-1): no value is left in"
              + " 1.." + MAX_ISSUED + " and the store was not changed");
        }
        yield new Issued(counter, next, new Condition.ExpectVersion(key, found.version()),
            Mutation.Put.of(key, encode(next + 1)));
      }
    };
  }

  /**
   * Issues one value of {@code counter} in a batch of its own (no record gated), retrying on Conflict: for a
   * value that must exist before its record can be written (a LeaseGeneration before the lease, an Entry
   * Spot's ObjectGeneration before its initialization). A value whose record is never written is simply unused.
   *
   * @param store the store.
   * @param counter the counter.
   * @param timeout the longest wait of each store call.
   * @param attempts how many Conflicts to absorb, at least 1.
   * @return the issued value.
   * @throws SpotkitException.GenerationExhausted when the counter is exhausted (nothing written).
   * @throws SpotkitException.Unavailable when the store fails, times out or keeps conflicting.
   */
  public static Issued issueAlone(final LocationStore store, final GenerationCounter counter,
      final Duration timeout, final int attempts) {
    final String key = counter.key().preimage();
    for (int i = 0; i < attempts; i++) {
      final Issued next = prepare(counter, StoreCalls.await(store.read(key), timeout, "read of " + counter.key()));
      final WriteResult result = StoreCalls.await(store.write(WriteBatch.of(List.of(next.condition()),
          List.of(next.advance()))), timeout, "write of " + counter.key());
      if (result instanceof WriteResult.Applied) {
        return next;
      }
    }
    throw new SpotkitException.Unavailable(counter.generationName() + " counter " + counter.key()
        + " changed under " + attempts + " attempts in a row; retry later");
  }

  /**
   * The counter value encoding: a bare canonical decimal in UTF-8.
   *
   * @param value 1..2^63-1.
   * @return the bytes.
   */
  public static StoreBytes encode(final long value) {
    checkStored("counter value", value);
    return StoreBytes.of(Long.toString(value).getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * Reads a counter value.
   *
   * @param counter the counter, for the message.
   * @param bytes the stored bytes.
   * @return the next value to issue, 1..2^63-1.
   * @throws RecordDecodeException.Malformed when not a canonical decimal in 1..2^63-1.
   */
  public static long decode(final GenerationCounter counter, final StoreBytes bytes) {
    final String text = bytes.asUtf8();
    if (!RecordJson.canonicalDecimal(text) || "0".equals(text)) {
      throw new RecordDecodeException.Malformed(counter.generationName() + " counter " + counter.key()
          + " holds '" + text + "', not a canonical decimal in 1..2^63-1", null);
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new RecordDecodeException.Malformed(counter.generationName() + " counter " + counter.key()
          + " holds '" + text + "', above 2^63-1", e);
    }
  }

  /**
   * Checks a stored generation value.
   *
   * @param what the generation's name.
   * @param value the value.
   * @throws IllegalArgumentException unless 1..2^63-1.
   */
  static void checkStored(final String what, final long value) {
    if (value < 1) {
      throw new IllegalArgumentException(what + " " + value + " must be in 1..2^63-1");
    }
  }
}
