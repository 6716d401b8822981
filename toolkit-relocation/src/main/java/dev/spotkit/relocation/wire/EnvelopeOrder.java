package dev.spotkit.relocation.wire;

import dev.spotkit.relocation.wire.EnvelopeEntries.ApplicationState;
import dev.spotkit.relocation.wire.EnvelopeEntries.PendingTimerTick;
import dev.spotkit.relocation.wire.EnvelopeEntries.SavedWork;
import dev.spotkit.relocation.wire.EnvelopeEntries.TimerRegistration;

/** The declared sort keys of the envelope's participant vectors; unsigned for u64, UTF-8 bytes for names. */
final class EnvelopeOrder {

  private EnvelopeOrder() {
  }

  static int compare(final ApplicationState a, final ApplicationState b) {
    return Long.compareUnsigned(a.participantId(), b.participantId());
  }

  static int compare(final SavedWork a, final SavedWork b) {
    final int c = Long.compareUnsigned(a.participantId(), b.participantId());
    return c != 0 ? c : Long.compareUnsigned(a.order(), b.order());
  }

  static int compare(final TimerRegistration a, final TimerRegistration b) {
    final int c = Long.compareUnsigned(a.participantId(), b.participantId());
    return c != 0 ? c : Fields.compareUtf8(a.name(), b.name());
  }

  static int compare(final PendingTimerTick a, final PendingTimerTick b) {
    final int c = Long.compareUnsigned(a.participantId(), b.participantId());
    return c != 0 ? c : Long.compareUnsigned(a.order(), b.order());
  }
}
