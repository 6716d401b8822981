package dev.spotkit.core.internal.creation;

import dev.spotkit.core.internal.runtime.JsonCopier;
import dev.spotkit.core.wire.Payloads;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.CreationTerminalRecord;
import dev.spotkit.store.Mutation;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The terminal record a remote creation writes in the same batch as its commit or abort (spec 002 section 7;
 * LOC-10, MEM-04..06), kept until 5 minutes after the operation's deadline. A creation started on this node by
 * a local caller has none ({@link #NONE}). Confined to the creation's control task.
 */
public final class CreationTerminal {
  /** Retention after the operation's deadline (spec 002 section 7). */
  static final Duration REPLAY_WINDOW = Duration.ofMinutes(5);
  /** No terminal record (a local creation). */
  public static final CreationTerminal NONE = new CreationTerminal(null, 0, 0, null);

  private final String key;
  /** Store time (ms) until which the record is kept: the deadline plus 5 minutes, on the store's clock. */
  private final long keepUntilStoreMs;
  /** A store time read and the local monotonic time it was read at: the store's clock, carried forward. */
  private final long storeMsAtRead;
  private final long nanosAtRead;
  private final JsonCopier copier;
  private CreationTerminalRecord ending;

  /**
   * @param key the terminal record's key, or null for none.
   * @param remainingMs time left to the operation's deadline when {@code storeNowMs} was read, in ms.
   * @param storeNowMs a StoreNow the provider returned just now (spec 002 section 7: retention counts in store
   *     time, not on this node's clock).
   * @param copier encodes application replies.
   */
  CreationTerminal(final String key, final long remainingMs, final long storeNowMs, final JsonCopier copier) {
    this.key = key;
    this.storeMsAtRead = storeNowMs;
    this.nanosAtRead = System.nanoTime();
    this.keepUntilStoreMs = storeNowMs + Math.max(0, remainingMs) + REPLAY_WINDOW.toMillis();
    this.copier = copier;
  }

  /** The extra mutation of a Ready commit. */
  List<Mutation> created(final long generation, final Optional<Object> reply) {
    return key == null ? List.of() : List.of(put(new CreationTerminalRecord(CreationTerminalRecord.Result.CREATED,
        generation, encode(reply), null, null)));
  }

  /** Records a decline; {@link #ended()} then stores it with the abort. */
  void rejected(final Optional<Object> reply) {
    if (key != null) {
      ending = new CreationTerminalRecord(CreationTerminalRecord.Result.REJECTED, 0, encode(reply), null, null);
    }
  }

  /** Records a typed failure; {@link #ended()} then stores it with the abort. */
  void failed(final SpotkitException error) {
    if (key != null && ending == null) {
      ending = new CreationTerminalRecord(CreationTerminalRecord.Result.FAILED, 0, null, error.kind().name(),
          error.getMessage());
    }
  }

  /** The extra mutation of an abort: the decline or failure recorded before it, if any. */
  public List<Mutation> ended() {
    return key == null || ending == null ? List.of() : List.of(put(ending));
  }

  private byte[] encode(final Optional<Object> reply) {
    return reply.map(r -> Payloads.toBytes(copier.encode("creation reply", r,
        CreationTerminalRecord.MAX_BYTES / 2)))
        .orElse(null);
  }

  private Mutation put(final CreationTerminalRecord record) {
    final long storeNow = storeMsAtRead + (System.nanoTime() - nanosAtRead) / 1_000_000L;
    final long left = Math.max(1, keepUntilStoreMs - storeNow);
    return Mutation.Put.expiring(key, record.encode(), Duration.ofMillis(left));
  }
}
