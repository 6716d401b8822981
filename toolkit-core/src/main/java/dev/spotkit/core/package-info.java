/**
 * Spotkit's public API: actors, the three Spot kinds, their contexts, fluent handlers, managers, refs, typed
 * errors, and {@link dev.spotkit.core.MeshNode}. Implementation lives in {@code dev.spotkit.core.internal}.
 *
 * <pre>{@code
 * MeshNode node = MeshNode.builder()
 *     .meshName("chat")
 *     .locationStore(new InMemoryLocationStore())
 *     .objectServer(server -> server
 *         .entrySpot(Lobby::new)
 *         .actor("player", Player::new, actor -> actor.disableRelocation())
 *         .userSpot("room", Room::new, spot -> spot.spotWide().recreateOnRelocation()))
 *     .sessions(s -> s.listen(7000).codec(LineCodec.utf8()).bindTo("player"))
 *     .start();
 * }</pre>
 *
 * <p>Decisions written down here (DESIGN.md asks for them):
 * <ul>
 *   <li><b>Sealed facades.</b> Types users must not implement (contexts, handler registries, targets, calls,
 *       managers, timers) are sealed. In an unnamed module a sealed type's permitted subclasses must share its
 *       package, so their thin implementations are package-private classes here that delegate to
 *       {@code internal}; the runtime obtains them through {@code internal.Facades}. JPMS was not used: the
 *       session transport (Netty) and the mailbox (Agrona) are plain jars.</li>
 *   <li><b>Calls start lazily.</b> {@code request(...)} and manager calls return a {@link dev.spotkit.core.Call};
 *       nothing happens until {@code await()} or {@code toFuture()}, and the absolute deadline (default 5 s) is
 *       fixed then, so {@code .timeout(...)} reads naturally before it.</li>
 *   <li><b>send throws at admission.</b> A one-way send refused by the local runtime (NotFound, StaleGeneration,
 *       CapacityExceeded for a full bounded mailbox, ShuttingDown) throws at once; it never blocks. A message
 *       without a handler on the target is logged and dropped; a request handler also serves a send.</li>
 *   <li><b>Awaiting one's own gate is refused.</b> An awaited request whose target runs on the caller's own
 *       execution gate (its own actor, or a SpotWide room and its members) can only time out, so it fails at
 *       once with InvalidOperation; with a registered join barrier this is MEM-15's rejection. Awaiting an actor
 *       creation inside a turn of the Entry Spot is refused the same way.</li>
 *   <li><b>Errors.</b> One sealed hierarchy, {@link dev.spotkit.core.SpotkitException}, nested in one file;
 *       {@code StaleGeneration} is a subtype of {@code InvalidOperation} (FACTS.md: "InvalidOperation (stale)").
 *       A request handler that throws a SpotkitException fails the request with it; other exceptions become
 *       InternalFailure. A creation declined by its callback is a result
 *       ({@link dev.spotkit.core.CreateOutcome.Rejected}); {@code CreateCall.await()} turns it into
 *       InvalidOperation and names {@code awaitOutcome()}.</li>
 *   <li><b>Immutable request copies.</b> Join and creation requests are copied through the default codec
 *       (JSON via Jackson) when registered; the encoded size is what the 1 MiB / 8 MiB limits measure. Ordinary
 *       messages pass by reference in-process.</li>
 *   <li><b>Timers</b> are named per owner; a second {@code every} with the same name replaces the first (Akka's
 *       key semantics). A tick is a turn through the owner's mailbox; ticks never pile up.</li>
 *   <li><b>Endings.</b> Actor destroy runs no OnLeaveActor and closes a bound session. A session disconnect is
 *       not a destroy: OnDisconnectActor runs once and the application decides; it runs after every frame of
 *       the session was handled and any join they started completed, on the spot the actor then belongs to
 *       (spec 000 section 3). A spot close returns false while members remain; {@code close()} from a spot's
 *       own turn takes effect after that turn. Node close ends within its timeout plus
 *       {@link dev.spotkit.core.MeshNode#CLOSE_MARGIN}, every pending request with it; called from a handler
 *       it starts the close on another thread and returns.</li>
 *   <li><b>Limits.</b> Timeouts are more than 0 and at most {@link dev.spotkit.core.Deadline#MAX_TIMEOUT}
 *       (365 days); ids must be well-formed Unicode (a lone surrogate is InvalidOperation); handler turns
 *       running at once are capped by the node's Application Job Queue limit (default 10,000); a session
 *       stops reading at 256 unhandled frames and resumes at 64.</li>
 *   <li><b>Instance Spot idle cleanup</b> (spec 003 section 6.2) is opt-in per registration
 *       ({@link dev.spotkit.core.InstanceSpotOptions#idleTimeout}, default none). The idle time counts from the end
 *       of the last turn or of the last call the spot started; it is checked on the node's timer thread, at most once
 *       per timeout per spot, and decided on the spot's gate, so it never overlaps a turn, a close or a move's seal.
 *       A message with Instance intent arriving during the cleanup activates the next incarnation.</li>
 *   <li><b>Not yet</b>: Logical Multicast (see
 *       {@link dev.spotkit.core.MeshNode#relocate(dev.spotkit.core.NodeRid)},
 *       {@link dev.spotkit.core.MeshNode#relocate(dev.spotkit.core.RelocateOptions)} and
 *       {@link dev.spotkit.core.MeshNode#relocateSpot(dev.spotkit.core.SpotId, dev.spotkit.core.NodeRid)} for what
 *       moves today: Entry actors, SpotWide and PerActor User Spots with their members, Instance Spots).</li>
 * </ul>
 */
package dev.spotkit.core;
