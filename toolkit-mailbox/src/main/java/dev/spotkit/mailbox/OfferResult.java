package dev.spotkit.mailbox;

/**
 * What {@link Mailbox#offer(Object)} did with a message. Backpressure is a result, never an exception
 * (STYLE.md rule 3): only a {@code null} message throws.
 */
public enum OfferResult {
    /** The message is queued and will run, in offer order per producer, or be returned by a drain. */
    ACCEPTED,
    /** The mailbox is bounded and full: nothing was queued, the caller still owns the message. */
    MAILBOX_FULL,
    /** The mailbox was released (terminal): nothing was queued, the caller still owns the message. */
    RELEASED
}
