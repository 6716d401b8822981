/**
 * The node runtime behind {@code dev.spotkit.core}. Not API: nothing outside toolkit-core may use it.
 *
 * <p>The classes live in subpackages by owner, layered bottom to top: {@code runtime} (cells, turns, timers,
 * messaging), {@code mesh} (RouteMesh), {@code creation}, {@code join}, {@code session} (SessionBinder,
 * BoundSession), {@code relocation} (pump driver, source and target ports, host relocation), and beside them
 * {@code observe} (Micrometer meters, the node event feed, timed store decorators). Each subpackage's
 * package-info names the owner of each stage; {@code dev.spotkit.core.arch.LayeringTest} keeps the arrows pointing
 * down and lists the known exceptions.
 *
 * <p>Shape (one object per concern, none locked from outside):
 * <ul>
 *   <li>{@link dev.spotkit.core.internal.runtime.NodeRuntime}: registries and parts; start and close.</li>
 *   <li>{@link dev.spotkit.core.internal.runtime.Cell},
 *       {@link dev.spotkit.core.internal.runtime.ActorCell},
 *       {@link dev.spotkit.core.internal.runtime.SpotCell}: one object each, its mailbox, handlers, timers, turn
 *       loop.</li>
 *   <li>{@link dev.spotkit.core.internal.runtime.Messaging}: resolve and offer;
 *       {@link dev.spotkit.core.internal.creation.Creations}:
 *       the creation paths; {@link dev.spotkit.core.internal.join.Joins}: the join chain;
 *       {@link dev.spotkit.core.internal.runtime.Lifecycle}: close, destroy, node close; {@code SessionBinder}: the
 *       session boundary; {@code StoreOps}: Location Store writes.</li>
 *   <li>The mesh: {@code RouteMesh} (transport, route cache, command 60 messages and their command 20 replies),
 *       {@code RemoteCreations} (placement and commands 47/49), {@code RemoteLifecycle} (commands 48/61),
 *       {@code InstanceActivations} (Instance intent and cold activation), {@code Descriptors} (this node's
 *       MeshNode descriptor and capacity limits), {@code ReplyErrors} (typed errors across the wire).</li>
 * </ul>
 *
 * <p>Decisions written down here:
 * <ul>
 *   <li><b>Execution gates.</b> Every cell owns one {@code Mailbox}. Entry Spot actors and PerActor members run
 *       on private gates; a SpotWide User Spot creates a shared gate ({@code Dispatcher.newGate()}) and a member's
 *       mailbox moves onto it when its join commits and back onto a private gate when it leaves, inside a control
 *       task of the old gate while the join barrier keeps the mailbox closed: the safe boundary.</li>
 *   <li><b>Lifecycle lane.</b> Creation, admission, joined/leave/disconnect callbacks and closing run as
 *       {@code ExecutionGate.execute} control tasks of the gate that owns the state they touch, so they are
 *       serialized with that object's turns. A control task aimed at an actor follows its mailbox if it moved.</li>
 *   <li><b>Creation.</b> One creator per id: a staged cell enters the registry with putIfAbsent and its store
 *       record goes Missing to CREATING; factory, configure and the creation callbacks run (actors on the Entry
 *       Spot's gate, spots on their own); the cell's mailbox stays closed until Ready, so messages (and session
 *       frames) that arrive early wait. Routing by id sees only Ready cells. The Entry Spot writes its one READY
 *       record only after OnInitialize (SPOT-01). An Instance Spot's first message is queued in the staged cell
 *       before the cell becomes visible, so it runs first.</li>
 *   <li><b>Join barrier.</b> A handler's deferred joins are kept on its {@link dev.spotkit.core.internal.runtime.Turn};
 *       at a normal end the actor's mailbox closes and the chain runs: target admission and commit,
 *       OnJoinedActor, source OnLeaveActor, gate move, completion callback, next join, reopen (MEM-34). A handler
 *       that throws drops them (MEM-10). A join call belongs to the turn that made it (MEM-13).</li>
 *   <li><b>Session disconnect.</b> Serialized with the actor's membership changes: a marker queued behind the
 *       binding's last frame, so it runs after every earlier frame and any join barrier they started; there
 *       the actor's mailbox closes (membership frozen), OnDisconnectActor runs on the then-current member
 *       spot's lane, and the mailbox reopens. Frames carry their binding ({@code Envelope.Frame}) so the
 *       session's inbound count drops once the handler ran (inbound backpressure).</li>
 *   <li><b>Session route switch.</b> This node is the Session owner of the sessions it accepted (spec 000
 *       section 4.2 step 8): a relocating bound actor's source seals the binding first (command 42, answered
 *       by 43 on the ordered connection), the binding holds the client's frames, and command 44 (commit from the
 *       target after its CAS and queue opening, abort from the source after its queue restoration) switches or
 *       releases the route in one serial step; no 44 within 3,000 ms closes the session ({@code SessionBinder},
 *       {@code Relocations#start}). No frame is acknowledged on its own (spec 001 section 11).</li>
 *   <li><b>Node close.</b> ShuttingDown for new work at once; sessions stop; timers stop; a marker message
 *       behind every accepted message finishes the accepted turns; OnClosing(HostShutdown) on each spot; then
 *       every mailbox is released (queued requests fail with ShuttingDown), store records deleted; then every
 *       future still pending fails with ShuttingDown (the runtime tracks every future it gave a deadline) and
 *       the dispatcher stops. Each step waits only until its own checkpoint of the close budget (15/45/75/95
 *       %), so a turn stuck in a handler costs one step's share, not the whole budget, and blocks only its own
 *       gate. Dispatcher.close waits up to a fixed 5 s for its workers, so it runs on its own thread and is
 *       waited for only until the close deadline.</li>
 *   <li><b>Owner lease.</b> Acquired before anything is written; every row names its OwnerId and
 *       LeaseGeneration, and the LeaseGeneration is the node's lifecycle generation. The send path reads a flag
 *       the timer thread refreshes every 5 ms from the lease's admission deadline (so it never reads the clock);
 *       store writes, creations and timer ticks ask the lease itself (LOC-04).</li>
 *   <li><b>Placement and creation.</b> Every row change that holds capacity (reserve, commit, abort, delete)
 *       is one batch together with the node capacity record ({@code PlacementBatches}); the coordinator never
 *       runs a factory for another node; a target adopts the row the coordinator reserved and answers once; a
 *       Creating row whose owner lease lapsed is aborted by the next GetOrCreate that waits on it.</li>
 *   <li><b>Mesh messages.</b> A message for an object not Ready here goes to the owner in its authority row
 *       (route cache 15 s, only Ready rows, dropped on NotFound/StaleGeneration answers and lost connections),
 *       over the one ordered connection per node pair, so one sender's messages to one object keep their
 *       order. Inbound messages are offered to the local mailbox on the Netty event loop (never forwarded again;
 *       Message Follow comes with relocation). Instance Spot first messages go to a deterministic weighted
 *       rendezvous pick per id, so senders on different nodes agree on the target.</li>
 *   <li><b>Hot path.</b> A one-way send allocates the envelope and nothing else (error texts are built when
 *       thrown); a turn allocates one {@link dev.spotkit.core.internal.runtime.Turn}, whose joins list appears with
 *       the first defer(), and the thread-local holding the current turn is read once per turn.</li>
 * </ul>
 */
package dev.spotkit.core.internal;
