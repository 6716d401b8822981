package dev.spotkit.core.internal.creation;

import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.core.internal.mesh.RouteSwitches;
import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.Ids;
import dev.spotkit.core.internal.runtime.Messaging;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.internal.session.SessionBinder;
import dev.spotkit.core.wire.Payloads;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.Spot;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.PlacementKind;
import dev.spotkit.core.location.Sha256;
import dev.spotkit.core.location.StoreCalls;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.RelocationReference;
import dev.spotkit.store.RelocationStore;
import dev.spotkit.store.StoreBytes;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Instance Spots: a message with Instance intent goes to the running Instance Spot wherever it is Ready, or
 * activates one (spec 003 section 6, spec 002 section 7.1). In a mesh the node that receives the first message
 * asks placement for a target; it never pre-creates an owner or a generation. The target keeps the first
 * message in the Relocation Store (when one is configured) and verifies it before it reserves the Creating
 * row that references it, runs factory and OnInitialize, commits Ready, runs the first message at the head of
 * the queue and only then deletes the stored copy (LOC-14, LOC-23). When two targets race, one reservation
 * wins; the loser hands every message it queued to the winner, in order, so none is lost (LOC-09).
 */
public final class InstanceActivations {
  /** Retention of a stored first message (FACTS.md "Relocation Store"): 24 h. */
  static final Duration FIRST_MESSAGE_RETENTION = Duration.ofHours(24);
  private static final Duration STORE_TIMEOUT = Duration.ofSeconds(5);
  private static final int MAX_ATTEMPTS = 1000;
  private static final String REFERENCE_PREFIX = "relocation-store:";

  /** How long Instance intent sent to another node may still come back here: the Message Follow duration, ns. */
  private static final long SENT_AWAY_NANOS = Duration.ofSeconds(30).toNanos();
  /** A {@link SentAway} is written again only when older than this, ns (one map write per second per id at most). */
  private static final long SENT_AWAY_REFRESH_NANOS = Duration.ofSeconds(1).toNanos();
  /** Most ids kept in {@link #sentAway}; past it the expired ones go, and all of them if that is not enough. */
  private static final int MAX_SENT_AWAY = 65_536;

  private final NodeRuntime rt;
  private final Creations creations;
  /**
   * The node this node last sent Instance intent to, per Instance Spot id, while the Spot was not here: what it sent
   * may still be on its way back here when an incarnation opens here (that node activated one that lost the
   * reservation, followed its earlier move, or handed on what reached its incarnation being cleaned up when idle).
   */
  private final ConcurrentHashMap<String, SentAway> sentAway = new ConcurrentHashMap<>();
  /** Hand-offs of lost activations whose queue is not empty yet, per Instance Spot id ({@link #joinedHandOff}). */
  private final ConcurrentHashMap<String, Forwarder> handOffs = new ConcurrentHashMap<>();
  /** The hand-off whose queue this thread forwards: its own sends are not queued behind it again. */
  private static final ThreadLocal<Forwarder> FORWARDING = new ThreadLocal<>();

  /**
   * Instance intent sent to {@code node}; {@code generation} is the ObjectGeneration of the route it was sent by, 0
   * when sent to be activated there; {@code atNanos} is when ({@link System#nanoTime()}).
   */
  private record SentAway(NodeRid node, InetSocketAddress endpoint, long generation, long atNanos) {
  }

  InstanceActivations(final NodeRuntime rt, final Creations creations) {
    this.rt = rt;
    this.creations = creations;
  }

  /**
   * Delivers with Instance intent: locally when the spot runs or is being activated here; else to its Ready
   * owner in the mesh; else to the node placement picks (this node included), which activates it.
   *
   * @param address the Instance Spot.
   * @param envelope the message.
   * @param awaiting whether the caller blocks (own-gate check).
   */
  public void deliver(final Address.Instance address, final Envelope.Msg envelope, final boolean awaiting) {
    deliver(address, envelope, awaiting, false);
  }

  /** {@link #deliver(Address.Instance, Envelope.Msg, boolean)}; {@code again}: after a dead owner's row was swept. */
  private void deliver(final Address.Instance address, final Envelope.Msg envelope, final boolean awaiting,
      final boolean again) {
    final RouteMesh mesh = rt.mesh();
    final String id = Ids.requireCallerSpotId(address.id());
    final SpotCell local = rt.spots.get(id);
    if (mesh != null && local != null && (local.state == CellState.READY && followedBack(mesh, local, address, envelope)
        || heldBehindSentAway(mesh, local, address, envelope))) {
      return;
    }
    if (mesh == null || rt.creations().remote() == null || local != null) {
      deliverHere(address, envelope, awaiting);
      return;
    }
    if (joinedHandOff(id, envelope)) {
      return;
    }
    if (moved(id, address.stableType(), envelope)) {
      return; // it moved away from here, or is being restored here
    }
    final Address.SpotById byId = new Address.SpotById(id);
    if (rt.messaging().routeSwitches().holdIfSwitching(byId, envelope)) {
      return; // behind what a switch of its route to another node holds (RouteSwitches.turn)
    }
    final RouteMesh.Route route;
    try {
      route = mesh.routeInstance(id, address.stableType(), envelope, "instance spot '" + id + "'");
      if (route == null) {
        return; // held until what this node sent the old way arrived (its route turned to another node)
      }
    } catch (SpotkitException.NotFound e) {
      final NodePeer target = rt.creations().remote().pickFor(id, PlacementKind.INSTANCE_SPOT,
          Ids.requireValid("stable type", address.stableType()));
      if (target.routingIdHex().equals(rt.nodeRid().hex())) {
        deliverHere(address, envelope, awaiting);
      } else {
        sendAway(new NodeRid(Long.parseUnsignedLong(target.routingIdHex(), 16)),
            RouteMesh.parseEndpoint(target.endpoint()), 0, address, envelope);
      }
      return;
    }
    if (route.kind() != PlacementKind.INSTANCE_SPOT || !route.stableType().equals(address.stableType())) {
      throw new SpotkitException.TypeMismatch("spot '" + id + "' exists as " + route.kind().wire() + " of type '"
          + route.stableType() + "'; Instance intent of type '" + address.stableType() + "' cannot address it"
          + " (spec 002 section 7.1)");
    }
    try {
      sendAway(route.owner(), route.endpoint(), route.generation(), address, envelope);
    } catch (SpotkitException.Unavailable unreachable) {
      if (again || !sweptDeadOwner(id, route.owner())) {
        throw unreachable;
      }
      deliver(address, envelope, awaiting, true); // Missing now: activated again on the node placement picks
    }
  }

  /**
   * Crash recovery for Instance intent: the owner node a route or the Spot's row names could not be reached (or the
   * node a move from here went to, whose Message Follow then ends: {@code AggregateMoves}). When
   * that owner run's lease is gone for good, its row goes in one store batch conditioned on the row's StoreVersion,
   * so the message activates a new incarnation (higher ObjectGeneration) on a live node:
   * <ul>
   *   <li>a Ready row ({@code MeshNode.Builder#recreateAfterOwnerLoss}, on by default) is swept, conditioned on the
   *   dead lease too ({@link dev.spotkit.core.location.PlacementBatches#sweepAbandoned}), as a GetOrCreate does for
   *   an actor or User Spot; the dead incarnation's memory is not recovered;</li>
   *   <li>a Creating row (the owner died while it activated the Spot, before Ready) is aborted once its owner lease
   *   is invalid ({@link dev.spotkit.core.location.PlacementBatches#abortAbandoned}), as GetOrCreate's recovery
   *   aborts a dead target's reservation (spec 000 section 2 step 7: "a reservation left behind by node termination
   *   is cleaned up by recovery cleanup's Abort"); whatever the option, as there: nothing was Ready, no state is
   *   lost, and a late commit of the dead node fails on the row's version.</li>
   * </ul>
   * One store read, and one batch (plus the lease read for a Creating row) while the row still names that owner.
   *
   * @param id the Instance Spot id.
   * @param owner the node that could not be reached.
   * @return true when the row is gone (swept or aborted now, or already) or names another owner now, and the caller
   *     may deliver once more; false when that owner may still be alive (the caller answers Unavailable).
   * @throws SpotkitException.Unavailable when the store does not answer.
   */
  public boolean sweptDeadOwner(final String id, final NodeRid owner) {
    final ObjectKey key = ObjectKey.spot(id);
    final ReadResult read = StoreCalls.await(rt.store().store().read(key.logicalKey().preimage()), STORE_TIMEOUT,
        "read of instance spot '" + id + "'");
    final ReadResult.Found found = read instanceof ReadResult.Found f ? f : null;
    final AuthorityRecord row = found == null ? null : AuthorityRecord.decode(found.value());
    final boolean namesOwner = row != null && row.allocation().routingIdHex().equals(owner.hex());
    if (namesOwner && row.allocation().state() == AuthorityRecord.State.RESERVED) {
      if (!rt.store().batches().abortAbandoned(key, found.version())) {
        return false; // its owner may still be alive and finish the activation: Unavailable
      }
      NodeRuntime.LOG.info("instance spot '{}': the node {} activating it is gone (owner lease expired); aborted its"
          + " reservation (generation {}) and activating it on a live node", id, owner.hex(),
          row.objectGeneration().value());
    } else if (!rt.config().recreateAfterOwnerLoss()) {
      return false;
    } else if (namesOwner) {
      if (!rt.store().batches().sweepAbandoned(key, found.version())) {
        return false; // its owner may still be alive: Unavailable, as the contract says
      }
      NodeRuntime.LOG.info("instance spot '{}': its owner on node {} is gone (owner lease expired); swept its"
          + " location record (generation {}) and activating a new incarnation; the old one's state is lost", id,
          owner.hex(), row.objectGeneration().value());
    } // else gone already, or it runs elsewhere now: by the route read anew
    rt.mesh().dropRoute(new Address.SpotById(id));
    return true;
  }

  /** Sends Instance intent to another node and notes that it went there ({@link #sentAway}). */
  private void sendAway(final NodeRid node, final InetSocketAddress endpoint, final long generation,
      final Address.Instance address, final Envelope.Msg envelope) {
    rt.mesh().forwardInstance(node, endpoint, address, envelope);
    final long now = System.nanoTime();
    final SentAway before = sentAway.get(address.id());
    if (before == null || !before.node().equals(node) || before.generation() != generation
        || now - before.atNanos() > SENT_AWAY_REFRESH_NANOS) {
      if (before == null && sentAway.size() >= MAX_SENT_AWAY) {
        sentAway.values().removeIf(s -> now - s.atNanos() > SENT_AWAY_NANOS);
        if (sentAway.size() >= MAX_SENT_AWAY) {
          sentAway.clear(); // only the order of messages sent more than a follow window ago is at stake
        }
      }
      sentAway.put(address.id(), new SentAway(node, endpoint, generation, now));
    }
  }

  /**
   * A send of this node to an Instance Spot that is here (Ready, or being activated here) while Instance intent this
   * node sent to another node when the Spot was not here may still be on its way back ({@link #sentAway}; within the
   * Message Follow duration). Held behind a flush marker sent the same way with Instance intent: that node passes it
   * on as it did the earlier messages (its activation's hand-off to the winner, its follow, its route), so it comes
   * back here behind them ({@code RouteSwitches}). Not for an incarnation that moved here from the node of a cached
   * route of the same ObjectGeneration: the cached route's switch orders those ({@link #followedBack}).
   *
   * @return true when held.
   */
  private boolean heldBehindSentAway(final RouteMesh mesh, final SpotCell local, final Address.Instance address,
      final Envelope.Msg envelope) {
    final SentAway away = sentAway.get(local.id);
    if (away == null || local.state != CellState.READY && local.state != CellState.STAGING) {
      return false;
    }
    if (System.nanoTime() - away.atNanos() > SENT_AWAY_NANOS
        || away.generation() != 0 && away.generation() == local.generation) {
      sentAway.remove(local.id, away);
      return false;
    }
    return rt.messaging().routeSwitches().holdBehind("spot:" + local.id, address, envelope, null,
        new RouteSwitches.OldWay(RouteSwitches.SENT_AWAY, away.node(), marker -> {
          if (sentAway.get(local.id) != away) {
            return false; // a switch ended this way since it was read: nothing more comes back by it
          }
          try {
            mesh.forwardInstance(away.node(), away.endpoint(), address, marker);
            return true;
          } catch (SpotkitException.Unavailable unreachable) {
            sentAway.remove(local.id, away); // nothing more comes back by that node
            return false;
          }
        }, () -> sentAway.remove(local.id, away)));
  }

  /**
   * Delivers with Instance intent on this node only: to the local Instance Spot, or activates one here with
   * this message as its first.
   *
   * @param address the Instance Spot.
   * @param envelope the message.
   * @param awaiting whether the caller blocks (own-gate check).
   */
  public void deliverHere(final Address.Instance address, final Envelope.Msg envelope, final boolean awaiting) {
    rt.requireServer("Instance Spot activation");
    final NodeConfig.SpotType type = creations.spotType(address.stableType(), NodeConfig.SpotKind.INSTANCE);
    final String id = Ids.requireCallerSpotId(address.id());
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      final SpotCell existing = rt.spots.get(id);
      if (existing == null && (moved(id, type.stableType(), envelope) || joinedHandOff(id, envelope))) {
        return; // it moved away (Message Follow), is being restored here, or a lost activation's queue is handed on
      }
      if (existing != null) {
        if (existing.kind != NodeConfig.SpotKind.INSTANCE || existing.type != type) {
          throw new SpotkitException.TypeMismatch("spot '" + id + "' exists as a " + existing.kind
              .name().toLowerCase() + " spot of type '" + existing.stableType + "'; Instance intent of type '"
              + type.stableType() + "' cannot address it");
        }
        if (existing.idle != null) { // decided under its ingress lock against an idle eviction (spec 003 s. 6.2)
          if (existing.idle.offerInstance(envelope, awaiting)) {
            return;
          }
        } else if (existing.state == CellState.STAGING || existing.state == CellState.READY) {
          Messaging.checkNotOwnGate(existing, awaiting);
          Messaging.offer(existing, envelope);
          return;
        }
        rt.spots.remove(id, existing);
        continue;
      }
      if (envelope.sessionWork() == SessionBinder.ROUTE_FLUSH) {
        // a route switch's flush marker that came the way earlier Instance intent went: that work was handled by an
        // incarnation since cleaned up here, so nothing of it is still on the way; never a new activation
        if (envelope.reply() != null) {
          envelope.reply().complete(Boolean.TRUE);
        }
        return;
      }
      final Messaging.StagedInstance staged = stage(address, type, envelope);
      if (rt.spots.putIfAbsent(id, staged.cell()) == null) {
        staged.activation().run();
        return;
      }
    }
    throw new SpotkitException.Unavailable("Instance Spot '" + id + "' is being replaced; retry");
  }

  /**
   * Stages a new incarnation of the Instance Spot {@code address} with {@code first} as its first message (spec 003
   * section 6, LOC-14): a new cell whose closed mailbox holds the message; nothing is registered, stored or reserved
   * yet. Used by {@link #deliverHere} and by an idle cleanup that hands what arrived while it ran to the next
   * incarnation in one step ({@code IdleEviction} through {@link Messaging#stageInstance}, spec 003 section 6.2).
   * Any thread; takes no lock but the new cell's own.
   *
   * @param address the Instance Spot.
   * @param type its registered type (Instance kind).
   * @param first the first message, with Instance intent.
   * @return the staged cell and its activation.
   * @throws SpotkitException.CapacityExceeded when the type's mailbox capacity cannot hold even the first message.
   */
  public Messaging.StagedInstance stage(final Address.Instance address, final NodeConfig.SpotType type,
      final Envelope.Msg first) {
    final SpotCell staged = new SpotCell(rt, address.id(), type);
    Messaging.offer(staged, first); // kept by the closed mailbox: the first message
    final FirstMessage copy = new FirstMessage(first.payload());
    staged.mailbox.offer(new Envelope.Marker(copy::handled)); // runs once the first message's turn ended
    return new Messaging.StagedInstance(staged, () -> staged.control(() -> activate(staged, address, copy)));
  }

  /**
   * An Instance Spot that moved here after this node sent to it elsewhere (its route is still cached, naming the
   * node it left): the message waits for the route switch ({@code RouteSwitches}: a flush marker sent that way, by
   * id, comes back behind the earlier ones by Message Follow), so one sender's order holds across the move (as
   * {@code Messaging} does for a Spot by id). When that node cannot be reached, the route is dropped and the message
   * is delivered here. The same for an Instance Spot that came back here while this node still follows its earlier
   * move away ({@code Messaging.heldBehindFollow}).
   *
   * @return true when held for the switch.
   */
  private boolean followedBack(final RouteMesh mesh, final SpotCell local, final Address.Instance address,
      final Envelope.Msg envelope) {
    final Address.SpotById byId = new Address.SpotById(local.id);
    return (mesh.routesElsewhere(byId, local.generation)
        && rt.messaging().routeSwitches().holdForSwitch("spot:" + local.id, mesh, byId, envelope))
        || rt.messaging().heldBehindFollow(address, local, envelope);
  }

  /**
   * Hands Instance-intent work for an Instance Spot that moved away from this node (Message Follow on the move's
   * ordered connection), or that is being restored here between its move's CAS and its open (behind the backlog),
   * to that move (spec 001 sections 4.3 and 10). Any thread; never blocks.
   *
   * @return true when taken.
   */
  private boolean moved(final String id, final String stableType, final Envelope.Msg envelope) {
    return rt.messaging().instanceMoved(new Address.Instance(id, stableType), envelope);
  }

  /** The first message's stored copy: written before the reservation, deleted after its handler ran. */
  private final class FirstMessage {
    private final Object message;
    private volatile RelocationReference reference;

    FirstMessage(final Object message) {
      this.message = message;
    }

    /** Stores and verifies the copy; the reservation's pending creation references it. */
    AuthorityRecord.PendingCreation store(final SpotCell cell) {
      final RelocationStore store = rt.config().relocationStore();
      if (store == null) {
        return null;
      }
      final byte[] bytes = Payloads.toBytes(rt.copier().encode("first message", message,
          Creations.MAX_CREATION_REQUEST_BYTES));
      final String sha = Sha256.hex(bytes);
      final RelocationReference ref = new RelocationReference("instance-activation/" + rt.meshName() + "/"
          + cell.id + "/" + Ids.newUuid());
      StoreCalls.await(store.put(ref, StoreBytes.of(bytes), FIRST_MESSAGE_RETENTION), STORE_TIMEOUT,
          "store of the first message of " + cell.describe());
      final RelocationStore.GetResult read = StoreCalls.await(store.get(ref), STORE_TIMEOUT,
          "verification of the first message of " + cell.describe());
      if (!(read instanceof RelocationStore.GetResult.Found found) || !Sha256.hex(found.payload().toByteArray())
          .equals(sha)) {
        throw new SpotkitException.DataLost("the first message of " + cell.describe() + " did not read back"
            + " intact from the Relocation Store; nothing was reserved");
      }
      reference = ref;
      return new AuthorityRecord.PendingCreation(ref.value(), REFERENCE_PREFIX + ref.value(), sha, bytes.length);
    }

    /** After the first message's handler (or when the activation was given up): delete the copy. */
    void handled() {
      final RelocationReference ref = reference;
      final RelocationStore store = rt.config().relocationStore();
      if (ref != null && store != null) {
        reference = null;
        store.delete(ref).whenComplete((now, failure) -> {
          if (failure != null) {
            NodeRuntime.LOG.warn("could not delete the stored first message {}; it expires with its retention",
                ref, failure);
          }
        });
      }
    }
  }

  /** On the staged spot's gate: store the first message, reserve, factory, OnInitialize, commit, open. */
  private void activate(final SpotCell cell, final Address.Instance address, final FirstMessage first) {
    try {
      rt.ensureRunning("activate " + cell.describe());
      rt.admit("an Instance Spot activation");
      final AuthorityRecord.PendingCreation pending = first.store(cell);
      rt.store().reserve(cell, null, pending);
      final Spot spot = creations.buildSpot(cell);
      Creations.callback(cell, () -> {
        spot.onInitialize();
        return Boolean.TRUE;
      }, "onInitialize of " + cell.describe());
      creations.makeReady(cell, Optional.empty());
    } catch (VirtualMachineError e) {
      throw e;
    } catch (SpotkitException.AlreadyExists e) {
      if (rt.mesh() != null) {
        handOff(cell, address); // another node won the reservation: its spot gets every queued message
      } else {
        rt.lifecycle().abortSpot(cell, e);
      }
    } catch (Throwable t) {
      rt.lifecycle().abortSpot(cell, Cell.typed(t, "activation of " + cell.describe()));
    }
  }

  /** On the staged spot's gate after a lost reservation: forward what it queued to the winner, in order. */
  private void handOff(final SpotCell cell, final Address.Instance address) {
    final Forwarder forwarder = new Forwarder(address);
    handOffs.put(cell.id, forwarder); // before the cell goes: a send meanwhile joins the hand-off, never overtakes it
    cell.state = CellState.GONE;
    rt.spots.remove(cell.id, cell);
    for (Envelope unrun : cell.mailbox.release(forwarder::add)) {
      forwarder.add(unrun);
    }
    forwarder.start();
  }

  /**
   * Instance intent for {@code id} while this node hands what its lost activation queued on to the winner: it joins
   * the end of that queue, so it does not overtake what its sender sent before (spec 001 section 5.1).
   *
   * @return true when taken by the hand-off.
   */
  private boolean joinedHandOff(final String id, final Envelope.Msg envelope) {
    final Forwarder running = handOffs.get(id);
    return running != null && running.join(envelope);
  }

  /**
   * Forwards envelopes with Instance intent to the spot's owner, one at a time, in arrival order. Registered in
   * {@link #handOffs} until its queue is empty; the envelopes its lost activation's mailbox still receives later
   * are forwarded the same way.
   */
  private final class Forwarder {
    private final Address.Instance address;
    /** Guarded by this. */
    private final ArrayDeque<Envelope> queue = new ArrayDeque<>();
    /** Guarded by this: true while a drain runs or is due (from construction until {@link #start}'s drain ends). */
    private boolean running = true;

    Forwarder(final Address.Instance address) {
      this.address = address;
    }

    /** Queues {@code envelope} (the lost activation's mailbox or its unrun work); drains when none runs. */
    void add(final Envelope envelope) {
      final boolean drain;
      synchronized (this) {
        queue.add(envelope);
        drain = !running; // before start's drain ended, running is still true: that drain takes it
        running = true;
      }
      if (drain) {
        drainAsync();
      }
    }

    /** After the unrun work was queued: the first drain. */
    void start() {
      drainAsync();
    }

    /** A later send of this node or a peer's: queued only while the hand-off runs; never by its own drain. */
    boolean join(final Envelope.Msg envelope) {
      if (FORWARDING.get() == this) {
        return false;
      }
      synchronized (this) {
        if (!running) {
          return false;
        }
        queue.add(envelope);
        return true;
      }
    }

    private void drainAsync() {
      rt.async(() -> {
        drain();
        return null;
      });
    }

    private void drain() {
      FORWARDING.set(this);
      try {
        for (;;) {
          final Envelope next;
          synchronized (this) {
            next = queue.poll();
            if (next == null) {
              running = false;
              handOffs.remove(address.id(), this); // under the monitor: a join either queued or finds it over
              return;
            }
          }
          if (next instanceof Envelope.Marker marker) {
            marker.task().run();
          } else if (next instanceof Envelope.Msg msg) {
            forward(msg);
          }
        }
      } finally {
        FORWARDING.remove();
      }
    }

    private void forward(final Envelope.Msg msg) {
      try {
        final ReadResult read = StoreCalls.await(rt.store().store().read(ObjectKey.spot(address.id()).logicalKey()
            .preimage()), STORE_TIMEOUT, "read of instance spot '" + address.id() + "'");
        if (!(read instanceof ReadResult.Found found)) {
          deliver(address, msg, false); // the winner is gone again: deliver as a new first message
          return;
        }
        final AuthorityRecord.Allocation a = AuthorityRecord.decode(found.value()).allocation();
        final NodeRid owner = new NodeRid(Long.parseUnsignedLong(a.routingIdHex(), 16));
        try {
          rt.mesh().forwardInstance(owner, rt.mesh().endpointOf(a.meshName(), owner, "instance spot '"
              + address.id() + "'"), address, msg);
        } catch (SpotkitException.Unavailable unreachable) {
          if (!sweptDeadOwner(address.id(), owner)) {
            throw unreachable;
          }
          deliver(address, msg, false); // the dead winner's row is gone: activated again on a live node
        }
      } catch (SpotkitException e) {
        if (msg.reply() != null) {
          msg.reply().fail(e);
        } else {
          NodeRuntime.LOG.warn("a message for instance spot '{}' could not be handed to its owner: {}",
              address.id(), e.getMessage());
        }
      }
    }
  }

}
