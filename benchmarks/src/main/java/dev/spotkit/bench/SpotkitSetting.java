package dev.spotkit.bench;

import dev.spotkit.mailbox.Dispatcher;
import dev.spotkit.mailbox.Mailbox;
import dev.spotkit.mailbox.MessageHandler;
import dev.spotkit.mailbox.OfferResult;

/**
 * The one dispatcher setting every Spotkit variant uses, and an actor built the way the runtime builds one, with
 * every real feature on:
 * <ul>
 *   <li>gates: each actor's mailbox runs on an execution gate of its own (Entry / PerActor actor);</li>
 *   <li>permits: a finite live-job limit ({@value #LIVE_PERMITS}), so every gate turn acquires and releases a permit
 *       (with an unlimited pool the dispatcher skips that path entirely);</li>
 *   <li>lifecycle: the mailbox is created CLOSED and opened by a control task on its gate (the start hook), and the
 *       lifecycle lane is checked after every message as in production;</li>
 *   <li>dispatch states: OPEN/CLOSED/RELEASED are read before every message.</li>
 * </ul>
 * Everything else is the dispatcher's default: workers = available processors, turn batch 64, spin 5 us, stall 1 ms.
 *
 * <p>Diagnostics only (never set for RESULTS.md's main table): system properties {@code bench.spotkit.permits}
 * ({@code 0} = unlimited), {@code bench.spotkit.turnBatch} and {@code bench.spotkit.spinNanos} override one knob each,
 * to put a number on a single design choice.
 */
final class SpotkitSetting {
    /** Live-job permits: far above what two workers can hold at once, but finite so the permit path runs. */
    static final int LIVE_PERMITS = 1024;

    private SpotkitSetting() {
    }

    static Dispatcher newDispatcher(final String name) {
        final int permits = Integer.getInteger("bench.spotkit.permits", LIVE_PERMITS);
        final Dispatcher.Builder builder = Dispatcher.builder()
            .workers(Math.max(1, Runtime.getRuntime().availableProcessors()))
            .livePermits(permits == 0 ? Integer.MAX_VALUE : permits)
            .name(name);
        final Integer turnBatch = Integer.getInteger("bench.spotkit.turnBatch");
        if (turnBatch != null) {
            builder.turnBatch(turnBatch);
        }
        final Long spinNanos = Long.getLong("bench.spotkit.spinNanos");
        if (spinNanos != null) {
            builder.spinNanos(spinNanos);
        }
        return builder.build();
    }

    /**
     * An actor mailbox on a private gate, created CLOSED and opened by a lifecycle control task (messages sent
     * before that are kept and run after it).
     */
    static <T> Mailbox<T> spawn(final Dispatcher dispatcher, final MessageHandler<? super T> handler) {
        final Mailbox<T> mailbox = dispatcher.newMailbox(handler);
        mailbox.close();
        mailbox.gate().execute(mailbox::open);
        return mailbox;
    }

    /** Offers and insists on ACCEPTED: a benchmark that silently lost messages would hang or lie. */
    static <T> void send(final Mailbox<T> to, final T message) {
        final OfferResult result = to.offer(message);
        if (result != OfferResult.ACCEPTED) {
            throw new IllegalStateException("offer returned " + result);
        }
    }
}
