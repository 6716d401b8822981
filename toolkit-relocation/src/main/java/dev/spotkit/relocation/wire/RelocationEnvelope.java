package dev.spotkit.relocation.wire;

import dev.spotkit.relocation.wire.EnvelopeEntries.ApplicationState;
import dev.spotkit.relocation.wire.EnvelopeEntries.PendingTimerTick;
import dev.spotkit.relocation.wire.EnvelopeEntries.SavedWork;
import dev.spotkit.relocation.wire.EnvelopeEntries.TimerRegistration;
import java.util.List;

/**
 * The relocation-envelope-v1 payload (spec 001 section 4.2): the canonical big-endian field stream the source
 * captures, keeps in memory and sends as command 52 chunks. No provider envelope surrounds it. Fields in schema
 * declaration order:
 *
 * <pre>
 *   relocation          u64 high, u64 low (the RelocationId, not both zero)
 *   object              union, see {@link ObjectIdentity}
 *   applicationVersion  i64
 *   applicationStates   u32 count, then {@link ApplicationState}    sorted, unique by participantId
 *   savedWork           u32 count, then {@link SavedWork}           sorted, unique by (participantId, order)
 *   timerRegistrations  u32 count, then {@link TimerRegistration}   sorted, unique by (participantId, name UTF-8)
 *   pendingTimerTicks   u32 count, then {@link PendingTimerTick}    sorted, unique by (participantId, order)
 * </pre>
 *
 * Participant identity is absent: participantId is {@link ParticipantInventory} index + 1. The constructor refuses
 * vectors that are not strictly ascending (caller misuse); {@link RelocationEnvelopeCodec#decode} refuses them
 * from the wire with {@link WireError#NOT_SORTED} or {@link WireError#DUPLICATE_ENTRY}.
 * Immutable (lists are copied); safe to share between threads.
 *
 * @param relocation the RelocationId.
 * @param object the object moved.
 * @param applicationVersion the application version of the captured state.
 * @param applicationStates per-participant state.
 * @param savedWork frozen, not-yet-executed work, in queue order per participant.
 * @param timerRegistrations timer registrations.
 * @param pendingTimerTicks due ticks not yet delivered.
 */
public record RelocationEnvelope(RelocationId relocation, ObjectIdentity object, long applicationVersion,
    List<ApplicationState> applicationStates, List<SavedWork> savedWork, List<TimerRegistration> timerRegistrations,
    List<PendingTimerTick> pendingTimerTicks) {

  /**
   * Validates and copies.
   *
   * @throws IllegalArgumentException when a part is null or a vector is not strictly ascending by its key.
   */
  public RelocationEnvelope {
    Fields.present("relocation", relocation);
    Fields.present("object", object);
    applicationStates = List.copyOf(Fields.present("applicationStates", applicationStates));
    savedWork = List.copyOf(Fields.present("savedWork", savedWork));
    timerRegistrations = List.copyOf(Fields.present("timerRegistrations", timerRegistrations));
    pendingTimerTicks = List.copyOf(Fields.present("pendingTimerTicks", pendingTimerTicks));
    for (int i = 1; i < applicationStates.size(); i++) {
      ascending("applicationStates", i, EnvelopeOrder.compare(applicationStates.get(i - 1), applicationStates.get(i)));
    }
    for (int i = 1; i < savedWork.size(); i++) {
      ascending("savedWork", i, EnvelopeOrder.compare(savedWork.get(i - 1), savedWork.get(i)));
    }
    for (int i = 1; i < timerRegistrations.size(); i++) {
      ascending("timerRegistrations", i,
          EnvelopeOrder.compare(timerRegistrations.get(i - 1), timerRegistrations.get(i)));
    }
    for (int i = 1; i < pendingTimerTicks.size(); i++) {
      ascending("pendingTimerTicks", i, EnvelopeOrder.compare(pendingTimerTicks.get(i - 1), pendingTimerTicks.get(i)));
    }
  }

  private static void ascending(final String vector, final int index, final int comparison) {
    if (comparison >= 0) {
      throw new IllegalArgumentException(vector + "[" + index + "] is " + (comparison == 0 ? "a duplicate of"
          : "ordered before") + " entry " + (index - 1) + "; participant vectors must be sorted and unique"
          + " (spec 001 section 4.2)");
    }
  }
}
