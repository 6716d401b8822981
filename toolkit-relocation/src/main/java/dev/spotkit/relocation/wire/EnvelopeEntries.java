package dev.spotkit.relocation.wire;

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
   * A length that differs from the case body is {@link RelocationWireError#INVALID_FIELD}.
   *
   * @param participantId 1..2^63-1.
   * @param state the adapter's state bytes, or null when the participant has none; copied.
   */
  public record ApplicationState(long participantId, byte[] state) {
    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException when participantId is not positive.
     */
    public ApplicationState {
      Fields.positive("participantId", participantId);
      state = state == null ? null : state.clone();
    }

    /**
     * The state.
     *
     * @return a copy, or null when the participant has no state.
     */
    @Override
    public byte[] state() {
      return state == null ? null : state.clone();
    }

    @Override
    public boolean equals(final Object o) {
      return o instanceof ApplicationState s && participantId == s.participantId && Arrays.equals(state, s.state);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(participantId) * 31 + Arrays.hashCode(state);
    }

    @Override
    public String toString() {
      return "ApplicationState[" + participantId + ", " + (state == null ? "none" : HexFormat.of().formatHex(state))
          + "]";
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
