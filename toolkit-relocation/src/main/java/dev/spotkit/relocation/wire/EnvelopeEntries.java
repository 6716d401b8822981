package dev.spotkit.relocation.wire;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The entry types of the four participant vectors of relocation-envelope-v1 (spec 001 section 4.2; layout of
 * the whole stream in {@link RelocationEnvelope}). participantId is 1 + the zero-based index of the participant's
 * authority key in UTF-8 byte order ({@link ParticipantInventory}); it is not an identity carried elsewhere.
 * Integers named "index", "order", "count" or "ms" are u64 read as unsigned and compared unsigned.
 */
public final class EnvelopeEntries {

  private EnvelopeEntries() {
  }

  /**
   * One participant's application state, sorted and unique by participantId. Layout (an optional union):
   *
   * <pre>
   *   participantId  nonzero-u64
   *   hasState       u8 0 or 1 (the discriminator)
   *   length         u64 bytes of the case body: 0 when hasState is 0, else 8 + payload length
   *   case body      hasState 1: payload length u64, payload bytes; hasState 0: nothing
   * </pre>
   *
   * A length that differs from the case body is {@link WireError#INVALID_FIELD}.
   *
   * <p>Immutable value with the accessors and equality of a record ({@code participantId()}, {@code state()}),
   * a final class so that a decoded state can be a read-only view of the stream it came from instead of a copy:
   * <ul>
   *   <li>{@link #ApplicationState(long, byte[])} copies the bytes it is given; {@link #state()} returns a copy.</li>
   *   <li>{@link #ofParts(long, byte[], byte[])} takes a state made of two arrays, a head followed by a body (a
   *       runtime's own framing followed by the adapter's bytes), without copying or joining them: the encoder
   *       writes both straight into the stream, so the body is copied once on its way to the wire.</li>
   *   <li>{@link #stateBuffer()} returns a read-only {@link ByteBuffer} over the bytes held, without a copy.</li>
   *   <li>{@link RelocationEnvelopeCodec#decode(byte[], long, int)} gives every state its own array (one copy out
   *       of the stream); {@link RelocationEnvelopeCodec#decodeOwned(byte[], long, int)} gives views of the stream,
   *       which the caller handed over for good (it must never be modified again), so nothing is copied.</li>
   * </ul>
   */
  public static final class ApplicationState {
    private static final byte[] NO_HEAD = new byte[0];

    private final long participantId;
    /** Bytes of the state before {@link #array}'s range ({@link #ofParts}); empty otherwise. Never written. */
    private final byte[] head;
    /** Null when the participant has no state; else the array holding it, never written after construction. */
    private final byte[] array;
    private final int offset;
    private final int length;

    /**
     * Validates and copies.
     *
     * @param participantId 1..2^63-1.
     * @param state the adapter's state bytes, or null when the participant has none; copied.
     * @throws IllegalArgumentException when participantId is not positive.
     */
    public ApplicationState(final long participantId, final byte[] state) {
      this(participantId, state == null ? null : state.clone(), 0, state == null ? 0 : state.length);
    }

    private ApplicationState(final long participantId, final byte[] array, final int offset, final int length) {
      this(participantId, NO_HEAD, array, offset, length);
    }

    private ApplicationState(final long participantId, final byte[] head, final byte[] array, final int offset,
        final int length) {
      Fields.positive("participantId", participantId);
      this.participantId = participantId;
      this.head = head;
      this.array = array;
      this.offset = offset;
      this.length = length;
    }

    /**
     * A state that is {@code head} followed by {@code body}, taken without a copy: the encoder
     * ({@link RelocationEnvelopeCodec}) writes both parts into the stream, which is then byte for byte the stream of
     * {@code new ApplicationState(participantId, head ++ body)}.
     *
     * <p>Ownership: both arrays are handed over; nobody may modify them afterwards.
     *
     * @param participantId 1..2^63-1.
     * @param head the first bytes of the state (e.g. a runtime's framing), possibly empty.
     * @param body the rest of the state, possibly empty, or null for none (the state is then {@code head}).
     * @return the state (it has state: {@link #hasState()} is true), {@code head.length + body.length} bytes.
     * @throws IllegalArgumentException when participantId is not positive or the state would exceed 2^31-9 bytes.
     * @throws NullPointerException when {@code head} is null.
     */
    public static ApplicationState ofParts(final long participantId, final byte[] head, final byte[] body) {
      java.util.Objects.requireNonNull(head, "head");
      final byte[] rest = body == null ? NO_HEAD : body;
      if ((long) head.length + rest.length > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("application state of " + ((long) head.length + rest.length)
            + " bytes exceeds one array (" + (Integer.MAX_VALUE - 8) + " bytes)");
      }
      return new ApplicationState(participantId, head, rest, 0, rest.length);
    }

    /** Takes {@code array[offset, offset + length)} without a copy; nobody may write those bytes afterwards. */
    static ApplicationState view(final long participantId, final byte[] array, final int offset, final int length) {
      return new ApplicationState(participantId, array, offset, length);
    }

    /**
     * The participant.
     *
     * @return participantId, 1..2^63-1.
     */
    public long participantId() {
      return participantId;
    }

    /**
     * The state.
     *
     * @return a copy, or null when the participant has no state.
     */
    public byte[] state() {
      if (array == null) {
        return null;
      }
      final byte[] copy = new byte[head.length + length];
      System.arraycopy(head, 0, copy, 0, head.length);
      System.arraycopy(array, offset, copy, head.length, length);
      return copy;
    }

    /**
     * Whether the participant has state.
     *
     * @return false exactly when {@link #state()} is null.
     */
    public boolean hasState() {
      return array != null;
    }

    /**
     * The state's length.
     *
     * @return bytes of state, 0 when the participant has none.
     */
    public int stateLength() {
      return head.length + length;
    }

    /**
     * The state without a copy.
     *
     * @return a read-only buffer over the state bytes (position 0, limit {@link #stateLength()}), or null when the
     *     participant has none. Each call returns a new buffer over the same bytes, which never change. A state
     *     made by {@link #ofParts} with a non-empty head is joined into a new array first (one copy).
     */
    public ByteBuffer stateBuffer() {
      if (array == null) {
        return null;
      }
      return head.length == 0 ? ByteBuffer.wrap(array, offset, length).slice().asReadOnlyBuffer()
          : ByteBuffer.wrap(state()).asReadOnlyBuffer();
    }

    /** Package access for the encoder: the state's head ({@link #ofParts}), empty when none; read only. */
    byte[] headUnsafe() {
      return head;
    }

    /** Package access for the encoder: the array holding the state after the head, null when none; read only. */
    byte[] arrayUnsafe() {
      return array;
    }

    /** Package access for the encoder: where the state after the head starts in {@link #arrayUnsafe()}. */
    int offset() {
      return offset;
    }

    /** Package access for the encoder: bytes of the state after the head in {@link #arrayUnsafe()}. */
    int bodyLength() {
      return length;
    }

    @Override
    public boolean equals(final Object o) {
      if (!(o instanceof ApplicationState s) || participantId != s.participantId) {
        return false;
      }
      if (array == null || s.array == null) {
        return array == s.array;
      }
      if (head.length == 0 && s.head.length == 0) {
        return Arrays.equals(array, offset, offset + length, s.array, s.offset, s.offset + s.length);
      }
      return Arrays.equals(state(), s.state());
    }

    @Override
    public int hashCode() {
      int h = 0;
      if (array != null) {
        h = 1;
        for (final byte b : head) {
          h = 31 * h + b;
        }
        for (int i = offset; i < offset + length; i++) {
          h = 31 * h + array[i];
        }
      }
      return Long.hashCode(participantId) * 31 + h;
    }

    @Override
    public String toString() {
      return "ApplicationState[" + participantId + ", " + (array == null ? "none"
          : HexFormat.of().formatHex(head) + HexFormat.of().formatHex(array, offset, offset + length)) + "]";
    }
  }

  /**
   * One frozen, not-yet-executed work item: {@code participantId nonzero-u64, order u64, record}. Sorted and unique
   * by (participantId, order).
   *
   * @param participantId 1..2^63-1.
   * @param order the item's position in the participant's queue, unsigned u64.
   * @param record the frozen record, see {@link FrozenRecord}.
   */
  public record SavedWork(long participantId, long order, FrozenRecord record) {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException when participantId is not positive or record is null.
     */
    public SavedWork {
      Fields.positive("participantId", participantId);
      Fields.present("record", record);
    }
  }

  /**
   * One timer registration: {@code participantId nonzero-u64, name text8, handlerType text8, periodMilliseconds
   * u64, overrunPolicy u8, maxCatchUpTicks u64, stopOnUnhandledException u8 (0/1), lastCompletedDeliveryIndex u64,
   * lastCompletedScheduledIndex u64, nextScheduledAtUnixMilliseconds u64}. Sorted and unique by (participantId,
   * name as UTF-8 bytes).
   *
   * @param participantId 1..2^63-1.
   * @param name the timer name, 1..255 UTF-8 bytes.
   * @param handlerType the handler's stable type, 1..255 UTF-8 bytes.
   * @param periodMilliseconds period in ms, unsigned.
   * @param overrunPolicy 0..255; {@link #OVERRUN_SKIP_LATE_TICKS} is the only value a fixture names.
   * @param maxCatchUpTicks catch-up limit in ticks, unsigned.
   * @param stopOnUnhandledException the unhandled-exception policy.
   * @param lastCompletedDeliveryIndex unsigned.
   * @param lastCompletedScheduledIndex unsigned.
   * @param nextScheduledAtUnixMilliseconds Unix time in ms, unsigned.
   */
  public record TimerRegistration(long participantId, String name, String handlerType, long periodMilliseconds,
      int overrunPolicy, long maxCatchUpTicks, boolean stopOnUnhandledException, long lastCompletedDeliveryIndex,
      long lastCompletedScheduledIndex, long nextScheduledAtUnixMilliseconds) {

    /** overrunPolicy 1: skipLateTicks (the value of relocation-envelope-v1.json). */
    public static final int OVERRUN_SKIP_LATE_TICKS = 1;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public TimerRegistration {
      Fields.positive("participantId", participantId);
      Fields.text8("name", name);
      Fields.text8("handlerType", handlerType);
      Fields.u8("overrunPolicy", overrunPolicy);
    }
  }

  /**
   * One due, not yet delivered timer tick: {@code participantId nonzero-u64, order u64, timerName text8,
   * deliveryIndex u64, scheduledIndex u64, scheduledAtUnixMilliseconds u64, skippedTicks u64}. Sorted and unique
   * by (participantId, order).
   *
   * @param participantId 1..2^63-1.
   * @param order position in the participant's sequence, unsigned.
   * @param timerName 1..255 UTF-8 bytes.
   * @param deliveryIndex unsigned.
   * @param scheduledIndex unsigned.
   * @param scheduledAtUnixMilliseconds Unix time in ms, unsigned.
   * @param skippedTicks unsigned.
   */
  public record PendingTimerTick(long participantId, long order, String timerName, long deliveryIndex,
      long scheduledIndex, long scheduledAtUnixMilliseconds, long skippedTicks) {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public PendingTimerTick {
      Fields.positive("participantId", participantId);
      Fields.text8("timerName", timerName);
    }
  }
}
