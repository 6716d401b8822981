package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.mesh.RouteSwitches;
import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.mailbox.OfferResult;
import java.util.concurrent.CompletableFuture;

/**
 * Send and request: resolve the address on every call, then offer to the target cell's mailbox. Routing only
 * finds Ready cells, checks the generation of a ref (stale refs are refused, never misrouted), and creates
 * nothing except an Instance Spot addressed with Instance intent.
 *
 * <p>The one-way send path allocates only the envelope: error texts are built when an error is thrown.
 */
public final class Messaging {
  private final NodeRuntime rt;
  private final RouteSwitches switches;

  Messaging(final NodeRuntime rt) {
    this.rt = rt;
    this.switches = new RouteSwitches(rt);
  }

  /** The route switches of objects that moved here (their flush markers arrive through {@link Cell}). */
  public dev.spotkit.core.internal.mesh.RouteSwitches routeSwitches() {
    return switches;
  }

  /**
   * The local cell of {@code address}, any state, or null (no store read).
   *
   * @param address by id or ref (not Instance intent).
   * @return the cell or null.
   */
  public Cell localCell(final Address address) {
    return local(address);
  }

  /**
   * Instance-intent work for an Instance Spot on this node, activating it here when absent (an idle cleanup hands on
   * what arrived while it ran). Reads the store on activation: never under a monitor.
   *
   * @param address the Instance Spot.
   * @param envelope the work.
   * @throws SpotkitException as the activation.
   */
  void deliverInstanceHere(final Address.Instance address, final Envelope.Msg envelope) {
    rt.creations().instances().deliverHere(address, envelope, false);
  }

  /**
   * An incarnation of an Instance Spot staged on this node and not started yet: its cell (STAGING, mailbox closed,
   * the first message queued at its head) and the task that starts its activation on the cell's gate (stores the first
   * message, reserves, runs factory and OnInitialize, commits Ready, opens the mailbox; a lost reservation hands the
   * queue to the winner). The caller registers the cell in the node's spot table before it runs the task, once.
   *
   * @param cell the staged cell, not registered.
   * @param activation starts the activation; run it once, after the cell is registered.
   */
  public record StagedInstance(SpotCell cell, Runnable activation) {
  }

  /**
   * Stages the next incarnation of an Instance Spot here with {@code first} as its first message, registering and
   * starting nothing ({@link dev.spotkit.core.internal.creation.InstanceActivations#stage}): an idle cleanup hands
   * what arrived while it ran to it in one step (spec 003 section 6.2). Any thread; takes no lock but the new cell's.
   *
   * @param address the Instance Spot.
   * @param type its registered type (Instance kind).
   * @param first the first message, with Instance intent.
   * @return the staged cell and its activation.
   * @throws SpotkitException.CapacityExceeded when the type's mailbox capacity cannot hold even the first message.
   */
  StagedInstance stageInstance(final Address.Instance address, final NodeConfig.SpotType type,
      final Envelope.Msg first) {
    return rt.creations().instances().stage(address, type, first);
  }

  /**
   * Whether a move of {@code key} ({@code spot:{id}}) is being restored on this node (its aggregate staging).
   *
   * @param key the participant key.
   * @return true while staged here.
   */
  boolean stagingHere(final String key) {
    final Relocations moves = rt.relocations();
    return moves != null && moves.aggregateStaging.containsKey(key);
  }

  /**
   * Delivers a message again by the full path (a route switch whose object moved on before its marker arrived).
   *
   * @param address the target.
   * @param envelope the message, already accepted once.
   * @throws SpotkitException as {@link #send(Address, Object)}.
   */
  public void redeliver(final Address address, final Envelope.Msg envelope) {
    deliver(address, envelope, false);
  }

  /**
   * One-way send.
   *
   * @param address the target.
   * @param message the message.
   */
  public void send(final Address address, final Object message) {
    requireMessage(message);
    if (rt.isClosing()) {
      throw rt.shuttingDown("send " + message.getClass().getSimpleName());
    }
    deliver(address, new Envelope.Msg(message, null), false);
  }

  /**
   * The local cell a {@code Target} resolved last, for {@link #send(Address, Object, CellCache)}. Read and written
   * racily by the threads that share the Target: a stale or missing entry only costs the full path.
   */
  public static final class CellCache {
    private Cell cell;
  }

  /**
   * {@link #send(Address, Object)} for a Target that keeps the local cell it resolved last (spec 001 section 3,
   * the local fast path): while that cell is Ready with the ref's ObjectGeneration it is the live incarnation here (a
   * cell that left Ready never becomes Ready again; a new incarnation is a new cell), so the map lookup is skipped.
   * A cell moving away still takes the message under its ingress lock ({@link Cell#offerEnvelope}). Every other case
   * (not cached, not Ready, another generation, a cached mesh route to another node) takes the full path.
   *
   * @param address the target, not Instance intent.
   * @param message the message, not null.
   * @param cache the Target's cache.
   * @throws SpotkitException as {@link #send(Address, Object)}.
   */
  public void send(final Address address, final Object message, final CellCache cache) {
    requireMessage(message);
    if (rt.isClosing()) {
      throw rt.shuttingDown("send " + message.getClass().getSimpleName());
    }
    final long generation = refGeneration(address);
    final Cell cached = cache.cell;
    if (cached != null && cached.state == CellState.READY && (generation == 0 || cached.generation == generation)) {
      rt.admit("a message turn");
      final RouteMesh mesh = rt.mesh();
      if ((mesh == null || !mesh.routesElsewhere(address, cached.generation)) && !followedAway(address)) {
        offer(cached, new Envelope.Msg(message, null));
        return;
      }
    }
    cache.cell = deliver(address, new Envelope.Msg(message, null), false); // the Ready cell it took, or null
  }

  /**
   * A request with an absolute deadline.
   *
   * @param address the target.
   * @param message the request.
   * @param replyType expected reply type.
   * @param deadline absolute deadline.
   * @param awaiting true when the caller will block on the result (enables the own-gate check, MEM-15).
   * @param <R> reply type.
   * @return the reply future; fails with a typed error. The caller attaches the deadline timer
   *     ({@link NodeRuntime#attachDeadline}, done by every {@code Call}), one per request.
   */
  @SuppressWarnings("unchecked")
  public <R> CompletableFuture<R> request(final Address address, final Object message, final Class<R> replyType,
      final Deadline deadline, final boolean awaiting) {
    requireMessage(message);
    if (replyType == null) {
      throw new SpotkitException.InvalidOperation("replyType must not be null; pass e.g. Reply.class");
    }
    final ReplySink sink = new ReplySink(deadline, replyType, "request " + message.getClass().getSimpleName()
        + " to " + address);
    try {
      rt.ensureRunning(sink.description);
      deliver(address, new Envelope.Msg(message, sink), awaiting);
    } catch (SpotkitException e) {
      sink.fail(e);
    }
    return (CompletableFuture<R>) sink.future;
  }

  /**
   * Full-path passes of one send at most: one more each time the store named this node as the owner after the pass
   * found the object neither Ready here nor followed from here (it opened here, or began to move away, in between).
   */
  static final int HERE_PASSES = 3;

  /** Delivers by the full path; returns the local Ready cell that took the message (generation checked), else null. */
  private Cell deliver(final Address address, final Envelope.Msg envelope, final boolean awaiting) {
    return deliver(address, envelope, awaiting, 1);
  }

  /** {@link #deliver(Address, Envelope.Msg, boolean)}, pass {@code pass} of at most {@link #HERE_PASSES}. */
  private Cell deliver(final Address address, final Envelope.Msg envelope, final boolean awaiting, final int pass) {
    rt.admit("a message turn");
    if (address instanceof Address.Instance instance) {
      rt.creations().instances().deliver(instance, envelope, awaiting);
      return null;
    }
    final Relocations moves = rt.relocations();
    final RouteMesh mesh = rt.mesh();
    if (mesh != null && moves != null && moves.arrivingHere(actorId(address), followKey(address))
        && mesh.routesElsewhere(address, 0) && switches.sendByOldRoute(followKey(address), mesh, address, envelope)) {
      return null; // being restored here: behind what this node sent to the old owner, which relays or follows it
    }
    if (moves != null && !moves.aggregateFollows.isEmpty() && followKey(address) != null
        && moves.aggregateStaging.containsKey(followKey(address)) && followOldWay(followKey(address), envelope)) {
      return null; // coming back here: through this node's earlier follow of it (same incarnation), or staged
    }
    if (moves != null && actorId(address) != null && !moves.aggregateFollows.isEmpty()
        && moves.aggregateFollows.containsKey(followKey(address)) && moves.arrivingHere(actorId(address), null)
        && followOldWay(followKey(address), envelope)) {
      return null; // relocating here while this node still follows its earlier move away: that way, behind those
    }
    if (moves != null && actorId(address) != null && moves.targetIngress(actorId(address), envelope)) {
      return null; // relocating here: the temporary queue (spec 001 section 4.3)
    }
    final Cell local = local(address);
    final String followed = (local == null || local.state != CellState.READY) && moves != null ? followKey(address)
        : null; // the participant key of a SpotWide aggregate that may have moved away from here, on a miss only
    if (followed != null && mesh != null && moves.followedAndIdle(followed) && mesh.routesElsewhere(address, 0)
        && switches.sendOldWay(followed, envelope, e -> followedBack(mesh, address, e))) {
      return null; // moved away from here, and this node sent to it elsewhere before: that way, behind those
    }
    final String movedId = followed != null ? actorId(address) : null;
    if (movedId != null && moves.followsBySource(movedId)
        && switches.sendOldWay(followed, envelope, e -> moves.sourceIngress(movedId, e))) {
      // moved away by its own move, newer than this node's follow of an earlier one (it came back here in between):
      // through that move's unit, not round the older follow's way
      return null;
    }
    if (followed != null && followOldWay(followed, envelope)) {
      return null; // moved away with its SpotWide aggregate: Message Follow
    }
    if ((local == null || local.state != CellState.READY) && moves != null && actorId(address) != null
        && moves.sourceIngress(actorId(address), envelope)) {
      // relocated away: Message Follow through its source unit; also for the GONE cell read just before the
      // detach removed it (the store may still name this node until the target's CAS: routing by it is NotFound)
      return null;
    }
    if (local != null && local.state == CellState.READY) {
      final long generation = refGeneration(address);
      if (generation != 0) {
        checkGeneration(local, generation);
      }
      checkNotOwnGate(local, awaiting);
      if (mesh != null && !(address instanceof Address.Instance) && mesh.routesElsewhere(address, local.generation)
          && switches.holdForSwitch(followKey(address), mesh, address, envelope)) {
        return null; // moved here after this node sent to it elsewhere: behind those messages, not ahead of them
      }
      if (heldBehindFollow(address, local, envelope)) {
        return null; // came back here while this node still followed it away: behind what it followed
      }
      offer(local, envelope);
      return local;
    }
    if (mesh != null) {
      if (switches.holdIfSwitching(address, envelope)) { // behind what a switch to another node holds
        return null;
      }
      if (pass < HERE_PASSES) { // owned elsewhere, or NotFound anywhere in the mesh; recorded here: look again
        return mesh.forwardUnlessHere(address, envelope) ? null : deliver(address, envelope, awaiting, pass + 1);
      }
      mesh.forward(address, envelope);
      return null;
    }
    resolve(address); // throws the typed NotFound
    return null;
  }

  /**
   * {@link Relocations#aggregateIngress(String, Envelope.Msg)} for a sender's own work (not work that arrived by
   * Message Follow): through this node's follow of the object's move away, or into its staged mailbox, unless a route
   * switch of the object is in progress, which holds it behind its marker ({@link RouteSwitches#sendOldWay}).
   *
   * @return true when taken.
   */
  private boolean followOldWay(final String key, final Envelope.Msg envelope) {
    final Relocations moves = rt.relocations();
    return switches.sendOldWay(key, envelope, e -> moves.aggregateIngress(key, e));
  }

  /**
   * Whether this node still follows work for the object to a node its SpotWide aggregate moved to from here
   * (Message Follow, 30 s): when the object is Ready here again, what this node sent it there may still be on its
   * way back. A map read when no follow runs.
   */
  private boolean followedAway(final Address address) {
    final Relocations moves = rt.relocations();
    return moves != null && !moves.aggregateFollows.isEmpty() && followKey(address) != null
        && moves.aggregateFollows.containsKey(followKey(address));
  }

  /**
   * Work for an object Ready here that came back while this node still follows its earlier move away (its SpotWide
   * aggregate's Message Follow, 30 s): held behind a flush marker sent through that follow, so it does not overtake
   * what a sender sent before and that follow brings back. For a send by id and for Instance intent that reached
   * the live Instance Spot here alike (one sender may use both), so neither overtakes the other. A map read when no
   * follow runs.
   *
   * @param address the object by id or ref.
   * @param local its Ready cell here.
   * @param envelope the work.
   * @return true when held; false when the caller offers it to {@code local} now.
   */
  public boolean heldBehindFollow(final Address address, final Cell local, final Envelope.Msg envelope) {
    return followedAway(address) && holdBehindFollow(address, local, envelope, null);
  }

  /**
   * {@link #heldBehindFollow} for this node's Instance intent to the Instance Spot {@code local} Ready here: what the
   * switch holds goes on with Instance intent should the Spot have moved on before its marker came back.
   *
   * @param intent the Instance Spot with Instance intent.
   * @param local its Ready cell here.
   * @param envelope the work.
   * @return true when held; false when the caller offers it to {@code local} now.
   */
  public boolean heldBehindFollow(final Address.Instance intent, final Cell local, final Envelope.Msg envelope) {
    final Address.SpotById byId = new Address.SpotById(intent.id());
    return followedAway(byId) && holdBehindFollow(byId, intent, local, envelope, null);
  }

  /**
   * {@link #heldBehindFollow} for Instance intent that reached this node: only when this node still follows the
   * Spot's earlier move away (a map read first) and the live Instance Spot of that stable type is Ready here.
   */
  private boolean instanceHeldBehindFollow(final Address.Instance instance, final Envelope.Msg envelope,
      final RouteSwitches.Inbound inbound) {
    final Address.SpotById byId = new Address.SpotById(instance.id());
    if (!followedAway(byId)) {
      return false;
    }
    final SpotCell here = rt.spots.get(instance.id());
    return here != null && here.state == CellState.READY && here.kind == NodeConfig.SpotKind.INSTANCE
        && here.type.stableType().equals(instance.stableType())
        && holdBehindFollow(byId, instance, here, envelope, inbound);
  }

  /**
   * The route switch of an object Ready here whose earlier move away this node still follows
   * ({@link #followedAway}): a flush marker goes through that follow, later sends wait for it (RouteSwitches), and
   * the follow ends when it is back while the object is still Ready here (not when it moved away again meanwhile).
   * A follow of another incarnation is dropped at once (not an Instance Spot's: {@link #followWay}). A message the
   * node {@code local} came from followed here ({@link Cell#arrivedFrom}) is earlier work and never held: the peer's
   * "followed back" flag is read before the message is delivered, so one that arrived just before the object opened
   * here is told apart only now.
   *
   * @return true when held; false when the caller offers {@code envelope} to {@code local} now.
   */
  private boolean holdBehindFollow(final Address address, final Cell local, final Envelope.Msg envelope,
      final RouteSwitches.Inbound inbound) {
    return holdBehindFollow(address, address, local, envelope, inbound);
  }

  /**
   * {@link #holdBehindFollow(Address, Cell, Envelope.Msg, RouteSwitches.Inbound)}; {@code held}: the address the
   * switch redelivers what it held by should the object have moved on (Instance intent for Instance intent).
   */
  private boolean holdBehindFollow(final Address address, final Address held, final Cell local,
      final Envelope.Msg envelope, final RouteSwitches.Inbound inbound) {
    if (inbound != null && inbound.followedFrom() != null && inbound.followedFrom().equals(local.arrivedFrom)) {
      return false;
    }
    final RouteSwitches.OldWay way = followWay(address, local);
    return way != null && switches.holdBehind(followKey(address), held, envelope, inbound, way);
  }

  /**
   * This node's follow of {@code local}'s earlier move away from here, as an old way to flush: the marker goes through
   * it while it is still the current follow; it ends (the follow is dropped) only while the object is still Ready
   * here. Null when there is no follow; a follow of another incarnation is dropped at once (null), except an Instance
   * Spot's, whose marker goes with Instance intent.
   */
  private RouteSwitches.OldWay followWay(final Address address, final Cell local) {
    final Relocations moves = rt.relocations();
    final String key = followKey(address);
    final Relocations.Followed before = moves.aggregateFollows.get(key);
    if (before == null) {
      return null;
    }
    final boolean instance = local instanceof SpotCell spot && spot.kind == NodeConfig.SpotKind.INSTANCE;
    if (before.generation() != local.generation && !instance) {
      moves.aggregateFollows.remove(key, before); // an earlier incarnation's follow: nothing to queue behind
      return null;
    }
    // An earlier incarnation's follow of an Instance Spot still matters: Instance intent that went through it reached
    // whatever incarnation ran there (spec 003 section 6), this one among them. Its marker goes with Instance intent
    // the same way; the one of this incarnation's follow goes by id, as the follow's messages by id.
    final Address.Instance byIntent = instance && before.generation() != local.generation
        ? new Address.Instance(local.id, ((SpotCell) local).stableType) : null;
    return new RouteSwitches.OldWay(RouteSwitches.FOLLOW, null, marker -> {
      if (moves.aggregateFollows.get(key) != before) {
        return false; // an earlier switch ended this follow since it was read: nothing more comes back by it
      }
      if (byIntent != null) {
        return followInstance(before, byIntent, marker);
      }
      before.offer(marker);
      return true;
    }, () -> {
      // Only while the object is still Ready here. Read Ready just as its aggregate moved away again, the follow read
      // is that move's own (put before the cell turned GONE): it routes every stale sender from now on, and the
      // marker that went through it ran on the node it moved to, so it must stay.
      if (local.state == CellState.READY) {
        moves.aggregateFollows.remove(key, before);
      }
    });
  }

  /**
   * After a route switch of an object Ready here flushed the old ways in {@code done}: another old way by which this
   * node's earlier messages may still be coming back (its cached route to another node, or its follow of the
   * object's earlier move away), or null. Any thread.
   *
   * @param address the object.
   * @param local its Ready cell here.
   * @param done the {@link RouteSwitches.OldWay#kind}s flushed already.
   * @return the next old way, or null.
   */
  public RouteSwitches.OldWay nextOldWay(final Address address, final Cell local, final int done) {
    final RouteMesh mesh = rt.mesh();
    if ((done & RouteSwitches.ROUTE) == 0 && mesh != null && !(address instanceof Address.Instance)
        && mesh.routesElsewhere(address, local.generation)) {
      return RouteSwitches.cachedWay(mesh, address);
    }
    if ((done & RouteSwitches.FOLLOW) == 0 && followedAway(address)) {
      return followWay(address, local);
    }
    return null;
  }

  /**
   * Whether {@code address}'s object is Ready here and moved here from {@code from} with its aggregate
   * ({@link Cell#arrivedFrom}): that node's follow brings what reached it after the move, earlier work of its senders
   * (the last hop of a longer way back, e.g. A to B to C to A, where this node's own follow goes to B).
   *
   * @param address the object.
   * @param from the peer a message came from by Message Follow.
   * @return true when the object came here from {@code from}.
   */
  public boolean arrivedFrom(final Address address, final dev.spotkit.core.NodeRid from) {
    final Cell here = localCell(address);
    return here != null && here.state == CellState.READY && from.equals(here.arrivedFrom);
  }

  /**
   * Sends {@code envelope} by this node's still-cached route to the node that owned the object before it moved here
   * ({@link RouteMesh#routesElsewhere}): that node follows it back behind what this node sent it before. When that
   * node cannot be reached or no longer knows the object, the route is dropped and the caller delivers locally.
   *
   * @return true when sent that way.
   */
  private static boolean followedBack(final RouteMesh mesh, final Address address, final Envelope.Msg envelope) {
    try {
      mesh.forward(address, envelope);
      return true;
    } catch (SpotkitException.Unavailable | SpotkitException.NotFound | SpotkitException.StaleGeneration e) {
      mesh.dropRoute(address);
      return false;
    }
  }

  private static long refGeneration(final Address address) {
    return switch (address) {
      case Address.ActorByRef byRef -> byRef.ref().generation().value();
      case Address.SpotByRef byRef -> byRef.ref().generation().value();
      default -> 0;
    };
  }

  /**
   * Delivers a message that a peer routed here: only to a local Ready object (never forwarded again), with
   * the generation the sender resolved checked when it gave one. Runs on a mesh event loop; never blocks.
   *
   * @param address by id, or Instance intent.
   * @param generation the ObjectGeneration the sender resolved, 0 for none.
   * @param envelope the message.
   * @throws SpotkitException.NotFound no Ready object with that id here.
   * @throws SpotkitException.StaleGeneration another generation is live here.
   */
  public void deliverInbound(final Address address, final long generation, final Envelope.Msg envelope) {
    deliverInbound(address, generation, envelope, false);
  }

  /**
   * As {@link #deliverInbound(Address, long, Envelope.Msg)}; {@code followed}: the message came back by Message
   * Follow (hops above 0) from the node this node's own follow of the object sends to
   * ({@link Relocations#followsTo}), so it is earlier work of its senders, never held behind that follow (a sender's
   * later messages wait behind it instead). A message another node followed here is not: that node's senders sent
   * their earlier messages here too, and this node may have followed those away, so it waits behind them like a
   * message sent here directly.
   *
   * @throws SpotkitException.NotFound no Ready object with that id here.
   * @throws SpotkitException.StaleGeneration another generation is live here.
   */
  public void deliverInbound(final Address address, final long generation, final Envelope.Msg envelope,
      final boolean followed) {
    deliverInbound(address, generation, envelope, followed, new RouteSwitches.Inbound(null));
  }

  /**
   * As {@link #deliverInbound(Address, long, Envelope.Msg, boolean)}; {@code inbound} names the peer when the message
   * came by Message Follow: a route switch whose marker went to that peer takes it for earlier work coming back
   * ({@link RouteSwitches.Inbound}).
   *
   * @throws SpotkitException.NotFound no Ready object with that id here.
   * @throws SpotkitException.StaleGeneration another generation is live here.
   */
  public void deliverInbound(final Address address, final long generation, final Envelope.Msg envelope,
      final boolean followed, final RouteSwitches.Inbound inbound) {
    if (rt.isClosing()) {
      throw rt.shuttingDown("message from a peer to " + address);
    }
    rt.admit("a message turn from a peer");
    if (address instanceof Address.Instance instance) {
      if (!followed && instanceHeldBehindFollow(instance, envelope, inbound)) {
        return; // came back here while this node still followed it away: as work by id, behind what it followed
      }
      rt.creations().instances().deliverHere(instance, envelope, false);
      return;
    }
    final Relocations moves = rt.relocations();
    final String actorId = actorId(address);
    // being restored here with its SpotWide aggregate: the aggregate's path, not the cell an earlier move of the actor
    // away from here still registers (its unit would send the message back the way it came)
    final boolean staged = moves != null && followKey(address) != null
        && moves.aggregateStaging.containsKey(followKey(address));
    Cell cell = null;
    if (moves != null && actorId != null && !staged) {
      if (moves.targetIngress(actorId, envelope)) {
        return;
      }
      // One read of the cell: read twice, a detach in between made a message for an actor relocating away end
      // NotFound instead of following it.
      final ActorCell here = rt.actors.get(actorId);
      if ((here == null || here.state != CellState.READY) && moves.sourceIngress(actorId, envelope)) {
        return; // moved away (or detaching right now): Message Follow
      }
      if (here == null && moves.abandonedHere(actorId)) {
        throw new SpotkitException.Unavailable("actor '" + actorId + "' is unavailable: its move to node "
            + rt.nodeRid() + " ended past relay-ready without a commit (spec 001 section 9)");
      }
      if (here != null && here.relocating != null) {
        cell = here; // relocating away: its source unit holds, relays or follows the message
      }
    }
    if (cell == null && moves != null && followKey(address) != null) {
      // One read of the cell: a Ready one takes the message itself (if it moves away meanwhile, its own follow
      // takes it under its ingress lock); read twice, a hand-over in between made the second read NotFound.
      final Cell here = local(address);
      if (!staged && here != null && here.state == CellState.READY) {
        cell = here;
      } else if (followed && staged) {
        if (moves.stagedIngress(followKey(address), envelope)) {
          return; // earlier work of its senders coming back: into the staged mailbox, behind the backlog
        }
        // Its staging opened since it was read (a loaded event loop thread can be parked between the two reads):
        // Ready here now, so into its mailbox, still behind what the staging held. Through this node's older
        // follow of the object it would go round the ring again behind later work (issue 13's ring reorder).
        final Cell opened = local(address);
        if (opened != null && opened.state == CellState.READY) {
          cell = opened;
        } else if (moves.aggregateIngress(followKey(address), envelope, true)) {
          return; // opened and moved on again: Message Follow
        }
      } else if (followed ? moves.aggregateIngress(followKey(address), envelope, true)
          : switches.sendOldWay(followKey(address), envelope, inbound,
              e -> moves.aggregateIngress(followKey(address), e))) {
        return; // moved away with its SpotWide aggregate: Message Follow
      }
    }
    if (cell == null) {
      cell = resolve(address);
    }
    if (generation != 0) {
      checkGeneration(cell, generation);
    }
    if (!followed && cell.state == CellState.READY && followedAway(address)
        && holdBehindFollow(address, cell, envelope, inbound)) {
      return; // came back here while this node still followed it away: behind what it followed
    }
    offer(cell, envelope);
  }

  /**
   * Instance-intent work for an Instance Spot that is not in this node's registry but moved away from here (Message
   * Follow on its move's ordered connection) or is being restored here between its move's CAS and its open (behind
   * the backlog): handed to that move, so a stale route never activates a second instance (spec 001 sections 4.3
   * and 10; spec 003 section 6). Any thread; never blocks.
   *
   * <p>After its hand-over here, Instance intent keeps its meaning on the way: it goes with Instance intent to the
   * node the Spot moved to (on the same ordered connection as the follow), so it still reaches a live instance
   * there, or activates a new one if that instance has closed since. A sender on this node that sent to the Spot
   * elsewhere before (a cached route) keeps sending that way, behind its earlier messages, also while the Spot is
   * being restored here (the old owner relays or follows it here behind those).
   *
   * @param address the Instance Spot with Instance intent.
   * @param envelope the work.
   * @return true when a move took it; false when the caller delivers or activates as usual.
   */
  public boolean instanceMoved(final Address.Instance address, final Envelope.Msg envelope) {
    final Relocations moves = rt.relocations();
    if (moves == null) {
      return false;
    }
    final String key = "spot:" + address.id();
    final RouteMesh mesh = rt.mesh();
    final Address.SpotById byId = new Address.SpotById(address.id());
    if (moves.aggregateStaging.containsKey(key)) {
      if (mesh != null && mesh.routesElsewhere(byId, 0) && switches.sendByOldRoute(key, mesh, address, envelope)) {
        // being restored here: behind what this node sent to the old owner, which relays or follows it; with Instance
        // intent as those were (by id, an earlier incarnation's follow there would name that incarnation)
        return true;
      }
      final Relocations.Followed earlier = moves.aggregateFollows.get(key);
      final Cell staged = moves.aggregateStaging.get(key);
      if (earlier != null && staged != null && earlier.generation() != staged.generation
          && switches.sendOldWay(key, envelope, e -> followInstance(earlier, address, e))) {
        // this node still follows an earlier incarnation's move away, and its Instance intent that went that way
        // reached the incarnation now coming here: behind it, with Instance intent (followOldWay's follow by id
        // names that earlier incarnation)
        return true;
      }
      return followOldWay(key, envelope);
    }
    if (mesh != null && moves.followedAndIdle(key) && mesh.routesElsewhere(byId, 0)
        && switches.sendOldWay(key, envelope, e -> followedBack(mesh, byId, e))) {
      return true;
    }
    final Relocations.Followed gone = moves.aggregateFollows.get(key);
    if (gone != null && switches.sendOldWay(key, envelope, e -> followInstance(gone, address, e))) {
      return true;
    }
    return followOldWay(key, envelope);
  }

  /** Instance intent through the follow of the Spot's move away from here; false when it could not be followed. */
  private boolean followInstance(final Relocations.Followed gone, final Address.Instance address,
      final Envelope.Msg envelope) {
    final Relocations moves = rt.relocations();
    synchronized (gone.lock()) { // behind what its hand-over still follows under this lock, never ahead
      if (moves.aggregates().followInstance(address, envelope, false)) {
        return true;
      }
    }
    return moves.aggregates().followInstance(address, envelope, true); // its connection closed: dial the target
  }

  /**
   * The follow key of an address.
   *
   * @param address any address.
   * @return {@code spot:{id}} or {@code actor:{id}} for an address by id or ref; null for Instance intent.
   */
  public static String followKey(final Address address) {
    return switch (address) {
      case Address.ActorById a -> "actor:" + a.id();
      case Address.ActorByRef a -> "actor:" + a.ref().id().value();
      case Address.SpotById s -> "spot:" + s.id();
      case Address.SpotByRef s -> "spot:" + s.ref().id().value();
      default -> null;
    };
  }

  private static String actorId(final Address address) {
    return switch (address) {
      case Address.ActorById byId -> byId.id();
      case Address.ActorByRef byRef -> byRef.ref().id().value();
      default -> null;
    };
  }

  /** The local cell the address names, in any state, or null. */
  private Cell local(final Address address) {
    return switch (address) {
      case Address.ActorById byId -> rt.actors.get(byId.id());
      case Address.SpotById byId -> rt.spots.get(byId.id());
      case Address.ActorByRef byRef -> rt.actors.get(byRef.ref().id().value());
      case Address.SpotByRef byRef -> rt.spots.get(byRef.ref().id().value());
      case Address.Instance instance -> rt.spots.get(instance.id());
    };
  }

  /** The Ready cell the address names. */
  Cell resolve(final Address address) {
    return switch (address) {
      case Address.ActorById byId -> ready(rt.actors.get(byId.id()), address);
      case Address.SpotById byId -> ready(rt.spots.get(byId.id()), address);
      case Address.ActorByRef byRef -> checkGeneration(ready(rt.actors.get(byRef.ref().id().value()), address),
          byRef.ref().generation().value());
      case Address.SpotByRef byRef -> checkGeneration(ready(rt.spots.get(byRef.ref().id().value()), address),
          byRef.ref().generation().value());
      case Address.Instance instance ->
          throw new IllegalArgumentException("instance intent is delivered, not resolved");
    };
  }

  private static <C extends Cell> C ready(final C cell, final Address address) {
    if (cell == null || cell.state != CellState.READY) {
      throw new SpotkitException.NotFound(describe(address) + " not found on this node (no Ready object with"
          + " that id; messages never create one: use the manager's getOrCreate, or Instance intent for an"
          + " Instance Spot)");
    }
    return cell;
  }

  private static String describe(final Address address) {
    return switch (address) {
      case Address.ActorById byId -> "actor '" + byId.id() + "'";
      case Address.SpotById byId -> "spot '" + byId.id() + "'";
      case Address.ActorByRef byRef -> "actor '" + byRef.ref().id() + "'";
      case Address.SpotByRef byRef -> "spot '" + byRef.ref().id() + "'";
      case Address.Instance instance -> "instance spot '" + instance.id() + "'";
    };
  }

  static <C extends Cell> C checkGeneration(final C cell, final long generation) {
    if (cell.generation != generation) {
      throw new SpotkitException.StaleGeneration("ref of " + cell.id + " has generation " + generation
          + " but the live incarnation has generation " + cell.generation + "; refused rather than misrouted."
          + " Get a fresh ref with find(\"" + cell.id + "\")");
    }
    return cell;
  }

  public static void checkNotOwnGate(final Cell cell, final boolean awaiting) {
    if (!awaiting || !cell.mailbox.gate().isCurrentThreadInTurn()) {
      return;
    }
    final Turn turn = Turn.current();
    if (turn != null && turn.owner == cell && turn.joinCount() > 0) {
      throw new SpotkitException.InvalidOperation("awaited request from " + cell.describe() + " to itself while"
          + " its handler has " + turn.joinCount() + " join barrier(s) registered (spec 000 section 4): the"
          + " request would wait for the handler that waits for it; use send, or request before defer()");
    }
    throw new SpotkitException.InvalidOperation("awaited request to " + cell.describe() + " from a turn on its"
        + " own execution gate would wait for itself (a handler awaiting its own actor, or a SpotWide room and"
        + " its members); use send, or toFuture() without awaiting it inside the turn");
  }

  public static void offer(final Cell cell, final Envelope.Msg envelope) {
    final OfferResult result = cell.offerEnvelope(envelope);
    switch (result) {
      case ACCEPTED -> {
      }
      case MAILBOX_FULL -> throw new SpotkitException.CapacityExceeded("mailbox of " + cell.describe()
          + " is full: capacity " + cell.mailbox.capacity() + " messages; slow the sender down or raise"
          + " mailboxCapacity(...) of its type");
      case RELEASED -> throw new SpotkitException.NotFound(cell.describe() + " is gone (closed or destroyed)");
    }
  }

  private static void requireMessage(final Object message) {
    if (message == null) {
      throw new SpotkitException.InvalidOperation("message must not be null; send a record value");
    }
  }
}
