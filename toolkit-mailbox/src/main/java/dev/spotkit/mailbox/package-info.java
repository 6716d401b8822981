/**
 * Lock-free mailboxes and their dispatch on virtual threads (DESIGN.md "Execution model").
 *
 * <h2>Decisions</h2>
 * <ul>
 *   <li>One {@link dev.spotkit.mailbox.Mailbox} per Spot and per Actor: an Agrona MPSC queue
 *       ({@code ManyToOneConcurrentLinkedQueue}, or {@code ManyToOneConcurrentArrayQueue} when bounded) plus a
 *       dispatch state. Idle re-checks use {@code isEmpty()}, never {@code poll()}: an Agrona offer claims the
 *       tail before it publishes the element, so {@code poll()} can miss an offer in flight while
 *       {@code isEmpty()} cannot.</li>
 *   <li>The scheduled unit is the {@link dev.spotkit.mailbox.ExecutionGate}, with one atomic IDLE/SCHEDULED token.
 *       A private gate runs one mailbox; a shared gate (a SpotWide room) keeps a ready queue of its mailboxes.</li>
 *   <li>A few virtual worker threads ({@link dev.spotkit.mailbox.Dispatcher}) drain scheduled gates, with a
 *       run-next slot per worker, a shared-queue-first pick every 64th turn, about 5 us of spinning before parking,
 *       no wake-up while some worker already spins, and a watchdog that frees run-next slots of blocked workers and
 *       starts extra workers. Measured on this machine, one virtual thread per actor that parks when empty reached
 *       0.4x Pekko; this design is measured in {@code benchmarks/RESULTS.md}.</li>
 *   <li>Dispatch states OPEN / CLOSED / RELEASED and "open with backlog" in one step are what relocation needs
 *       (spec 001 section 4.6): a sealed object keeps accepting, a target opens with its ordered backlog first.</li>
 *   <li>The live-job permit pool ({@link dev.spotkit.mailbox.PermitPool}) is the spec's Application Job Queue
 *       limit: only a running gate turn holds a permit; waiting gates and queued messages hold none.</li>
 * </ul>
 */
package dev.spotkit.mailbox;
