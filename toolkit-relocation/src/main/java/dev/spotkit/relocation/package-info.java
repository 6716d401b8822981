/**
 * The relocation protocol of spec 001 as a pure state machine ("sans-I/O"): no threads, no sockets, no clocks of
 * its own. It consumes events (restore requested, chunk arrived, relay record arrived, relay-ready accepted,
 * cutover arrived, CAS answered or indeterminate, store re-read, connection lost or replaced, clock advanced) and
 * answers with actions (send frame, run CAS, re-read store, merge backlog, open dispatch, remove staging, log);
 * toolkit-core drives it with real I/O and tests drive it with a seeded simulator and a fake clock (DESIGN.md
 * "Relocation").
 *
 * <h2>Shape</h2>
 * <ul>
 *   <li>{@link dev.spotkit.relocation.SourceUnit} and {@link dev.spotkit.relocation.TargetUnit} (routed by
 *       {@link dev.spotkit.relocation.TargetUnits}) hold one unit's state; every stage change goes through the
 *       one table {@link dev.spotkit.relocation.Transitions}; an edge it lacks throws
 *       {@link dev.spotkit.relocation.IllegalTransition} and changes nothing.</li>
 *   <li>Inputs are the sealed {@link dev.spotkit.relocation.SourceEvent} and
 *       {@link dev.spotkit.relocation.TargetEvent}; outputs the sealed {@link dev.spotkit.relocation.Action}, with
 *       frames as meanings ({@link dev.spotkit.relocation.Frame}). Inputs from the wire use package
 *       {@code .wire}'s types: the relocation identity is {@link dev.spotkit.relocation.wire.RelocationIdentity},
 *       a Restore request carries the decoded command 40 and a chunk the decoded command 52
 *       ({@link dev.spotkit.relocation.wire.StateView}), assembled by
 *       {@link dev.spotkit.relocation.wire.ChunkAssembler}; {@link dev.spotkit.relocation.FailureCode} holds the
 *       table of command 53 failure codes.</li>
 *   <li>{@link dev.spotkit.relocation.InFlightBudget} (spec 001 section 5.3) and
 *       {@link dev.spotkit.relocation.follow.MessageFollowTable} (spec 002 section 7.3).</li>
 *   <li>{@link dev.spotkit.relocation.session.SessionBarrier}: the Session owner's side of a bound Actor's move
 *       (commands 42, 43 and 44; spec 001 sections 7, 9 and 12), with its own events, actions and stage table.
 *       {@link dev.spotkit.relocation.Frame.SessionRoute} remains the units' meaning-level command 44; its bytes
 *       are {@link dev.spotkit.relocation.wire.SessionRelocationFrame.Route}.</li>
 * </ul>
 *
 * <h2>Decisions where the spec leaves room</h2>
 * <ul>
 *   <li>Stages per side: the source walks SourceRunning, SourcePaused, RelayReady (reply accepted), FollowOnly;
 *       the target TargetRestoring, RelayReady (reply sent), CutoverReceived or CutoverFallback, StoreRetry,
 *       OwnerCommitted, TargetOpen or TargetRemoved. The source relays its hold and submits the cutover in the
 *       same step that accepts the reply, and the target merges and opens in the step that commits.</li>
 *   <li>Cutover CRC-32C is over the command 31 record bytes ({@link dev.spotkit.relocation.RelayChecksum}):
 *       each pre-boundary record's {@link dev.spotkit.relocation.wire.FrozenRecord#encode()} in relay order, which
 *       is what a {@link dev.spotkit.relocation.Message} body carries.</li>
 *   <li>A cutover whose count or CRC-32C does not match is an Error ({@code cutover_mismatch}) and not a
 *       transition: the target keeps waiting for a retransmission or the cutover-wait fallback.</li>
 *   <li><b>Driver contract: connection ids to one peer increase</b> (a reconnect gets a larger id). Frames still
 *       buffered on a connection the transfer already left can be read after the newer connection's frames
 *       (section 5.1 orders frames only within one connection); a relay, cutover or repeated Restore on an older
 *       connection than the one in use is discarded with a warning ({@code stale_relay}, {@code stale_cutover},
 *       {@code stale_restore}), never allowed to replace the newer batch or take attribution back. A
 *       targetAttemptGeneration is compared for equality only (spec 002 section 8.1): another attempt of the same
 *       RelocationId is another identity, and the later arrival wins like any other.</li>
 *   <li>A retransmitted batch (relay on a new connection) replaces the pre-boundary span wholly until the backlog
 *       merge, also after the fallback; after an accepted cutover it is discarded ({@code duplicate_relay}); after
 *       the merge it is discarded ({@code late_retransmission}), while late relay on the span's own connection is
 *       dispatched (order not guaranteed, spec 001 section 4.4).</li>
 *   <li>A CAS conflict is confirmed by one re-read (this target already owner converges; anything else is stale
 *       and ends at once); transient and indeterminate answers re-read first, then repeat the same CAS, after
 *       {@code storeRetryBackoffMs}, until the Restore deadline, which is never extended. Answers carry the request
 *       number; one that is not outstanding only logs.</li>
 *   <li>Restore validity ending before the relay-ready reply is an explicit failure ({@code DEADLINE}); after it,
 *       {@code location_update_failed}. Removal fails every staged message with {@code Unavailable}.</li>
 *   <li>A new identity for the same object aborts a preparation still in TargetRestoring (the later attempt
 *       wins); one already past its relay-ready reply is not aborted and the newcomer gets {@code BUSY}.</li>
 *   <li>A repeated Restore (same identity and manifest) gets the relay-ready reply again past that point, the same
 *       explicit failure if the unit failed before it, and nothing if the unit was removed after it.</li>
 *   <li>The source's Message Follow and retransmission window start when it submits the cutover; it never learns
 *       the commit time, and it never writes the Location Store.</li>
 * </ul>
 *
 * <p>Dependency rule (checked by an ArchUnit test): this module imports nothing of toolkit-core, Netty or
 * Redis, and uses no threads, {@code java.lang.System} or {@code java.util.concurrent}.
 */
package dev.spotkit.relocation;
