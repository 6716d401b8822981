package dev.spotkit.mailbox;

/**
 * Dispatch state of one {@link Mailbox}. Relocation relies on these (spec 001 section 4.6, DESIGN.md
 * "Execution model"): a sealed object keeps accepting messages without running them, and its target opens
 * with an ordered backlog in one step.
 */
public enum DispatchState {
    /** Messages are accepted and handlers run. */
    OPEN,
    /** Messages are accepted and kept; no handler of this mailbox runs. */
    CLOSED,
    /** Terminal: offers return {@link OfferResult#RELEASED}. */
    RELEASED
}
