package dev.spotkit.store;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * The Relocation Store SPI (spec 002 sections 1.2 and 10; FACTS.md "Relocation Store"): immutable payloads at
 * references the framework fixed. It holds only Instance Spot cold-activation envelopes and completion records,
 * never the relocation handoff payload. The framework stores and verifies a payload before a Location Store
 * write points at it, and releases the reference before it deletes the payload.
 *
 * <p>Asynchronous and failure-typed like {@link LocationStore}: stages complete exceptionally with
 * {@link StoreException}. Limits (reference 1..4096 UTF-8 bytes, payload at most
 * {@link StoreLimits#MAX_RELOCATION_PAYLOAD_BYTES}) are checked before anything is sent. Thread-safety:
 * implementations are safe for use from any thread.
 *
 * <p>Lifecycle: as {@link LocationStore#close()}: idempotent, the default does nothing.
 */
public interface RelocationStore extends AutoCloseable {

  /** The default retention of a payload: 24 h, renewed by the framework when 12 h remain. */
  Duration DEFAULT_RETENTION = Duration.ofHours(24);

  /**
   * Stores {@code payload} at {@code reference} unless something is there already. The same bytes again is
   * {@link PutResult.AlreadyStored} (idempotent, the retention is not changed); other bytes is
   * {@link PutResult.Conflict} and the stored payload stays.
   *
   * @param reference the framework's reference.
   * @param payload the bytes; at most 16 MiB.
   * @param retention at least 1 ms; the payload expires that long after StoreNow.
   * @return Stored, AlreadyStored or Conflict.
   * @throws StoreLimitException at once when the payload is too large.
   */
  CompletionStage<PutResult> put(RelocationReference reference, StoreBytes payload, Duration retention);

  /**
   * Reads the payload at {@code reference}.
   *
   * @param reference the reference.
   * @return Found or Missing (never stored, deleted, or expired).
   */
  CompletionStage<GetResult> get(RelocationReference reference);

  /**
   * Sets the payload's expiry to StoreNow plus {@code retention}.
   *
   * @param reference the reference.
   * @param retention at least 1 ms.
   * @return Renewed, or Missing when there is nothing to renew.
   */
  CompletionStage<RenewResult> renew(RelocationReference reference, Duration retention);

  /**
   * Deletes the payload; idempotent (deleting nothing completes normally).
   *
   * @param reference the reference.
   * @return StoreNow of the delete.
   */
  CompletionStage<StoreNow> delete(RelocationReference reference);

  /**
   * Checks the payload size and the retention of a put or renew; providers call it before anything changes.
   *
   * @param payload the payload, or null for a renew.
   * @param retention the retention.
   * @throws StoreLimitException when the payload is larger than 16 MiB.
   * @throws IllegalArgumentException when the retention is shorter than 1 ms.
   */
  static void checkPut(final StoreBytes payload, final Duration retention) {
    Objects.requireNonNull(retention, "retention");
    if (retention.toMillis() < 1) {
      throw new IllegalArgumentException("retention " + retention + " must be at least 1 ms");
    }
    if (payload != null && payload.size() > StoreLimits.MAX_RELOCATION_PAYLOAD_BYTES) {
      throw new StoreLimitException("relocation payload", payload.size(), StoreLimits.MAX_RELOCATION_PAYLOAD_BYTES,
          "relocation payload of " + payload.size() + " bytes exceeds the limit of "
          + StoreLimits.MAX_RELOCATION_PAYLOAD_BYTES + " bytes (16 MiB)");
    }
  }

  /**
   * Releases the provider's resources (connections, threads); idempotent. Calls after close fail with
   * {@link StoreException.Unavailable}. The default does nothing.
   */
  @Override
  default void close() {
  }

  /** Outcome of {@link #put}. */
  sealed interface PutResult {
    /**
     * The payload is now stored.
     *
     * @param expiresAtMillis store time of expiry.
     * @param now StoreNow.
     */
    record Stored(long expiresAtMillis, StoreNow now) implements PutResult {
    }

    /**
     * The same bytes were already stored; nothing changed.
     *
     * @param expiresAtMillis the stored payload's expiry.
     * @param now StoreNow.
     */
    record AlreadyStored(long expiresAtMillis, StoreNow now) implements PutResult {
    }

    /** Other bytes are stored at this reference; nothing changed. */
    record Conflict() implements PutResult {
    }
  }

  /** Outcome of {@link #get}. */
  sealed interface GetResult {
    /**
     * The payload.
     *
     * @param payload the stored bytes.
     * @param expiresAtMillis store time of expiry.
     * @param now StoreNow.
     */
    record Found(StoreBytes payload, long expiresAtMillis, StoreNow now) implements GetResult {
      /**
       * Checks for null.
       *
       * @throws NullPointerException when a part is null.
       */
      public Found {
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(now, "now");
      }
    }

    /**
     * Nothing is stored at the reference.
     *
     * @param now StoreNow.
     */
    record Missing(StoreNow now) implements GetResult {
    }
  }

  /** Outcome of {@link #renew}. */
  sealed interface RenewResult {
    /**
     * The new expiry.
     *
     * @param expiresAtMillis store time of expiry.
     * @param now StoreNow.
     */
    record Renewed(long expiresAtMillis, StoreNow now) implements RenewResult {
    }

    /**
     * Nothing is stored at the reference.
     *
     * @param now StoreNow.
     */
    record Missing(StoreNow now) implements RenewResult {
    }
  }
}
