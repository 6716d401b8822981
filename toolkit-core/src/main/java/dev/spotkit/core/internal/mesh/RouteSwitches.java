package dev.spotkit.core.internal.mesh;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.Messaging;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.ReplySink;
import dev.spotkit.core.internal.session.SessionBinder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The switch of this node's sends to an object from the node it lived on to this node, once it moved here
 * (spec 000 section 9 gives no order across connections; spec 001 section 5.1 keeps one sender's order on one).
 *
 * <p>While the object lived elsewhere, this node sent to it over the ordered connection to that node, which
 * follows what arrives after the move back here (Message Follow). Delivering the next message straight into the
 * local mailbox would overtake those still on the way. So the first send that finds the object Ready here while the
 * route cache still names the old owner sends a flush marker that way instead (a one-way command 60 marked
 * {@value SessionBinder#ROUTE_FLUSH_CONTENT}, payload "{this node's RID hex}/{token}"), and every send after it is
 * held here, in arrival order. The marker travels the path of the messages before it (the old owner follows it as
 * it follows them, or relays it with the move's backlog) and reaches the object's mailbox behind them; when the
 * object's turn reaches it, the held messages are put into the mailbox in order, the cached route is dropped, and
 * later sends go straight to the mailbox. No clock decides the order: the switch completes when the marker
 * arrives.
 *
 * <p>A marker that cannot be sent (the old owner unreachable, or it no longer knows the object) releases the held
 * messages at once; one that never comes back (its path broke after it was sent) releases them after
 * {@value #FLUSH_WITHIN_MS} ms. Either way what was sent by the old route is lost or failed already, and nothing
 * held is lost. A marker that reaches the object on another node than the one that sent it (it moved on) is dropped
 * there.
 *
 * <p>Thread-safety: any thread. Decisions for one object (send by the old route, start a switch, hold) are taken
 * under one of {@value #STRIPES} stripe locks, so a marker is never written ahead of a message sent that way before
 * it; the release runs under the switch's monitor, so a send that finds the switch done delivers after everything
 * it held.
 */
public final class RouteSwitches {
  /**
   * The marker's deadline, ms: the Message Follow duration (30,000), past which nothing sent the old way is
   * followed any more.
   */
  static final long FLUSH_WITHIN_MS = 30_000;
  private static final int STRIPES = 64;

  private final NodeRuntime rt;
  private final Object[] stripes = new Object[STRIPES];
  /** In-progress switches by follow key ({@code actor:{id}} / {@code spot:{id}}). */
  private final Map<String, Switch> byKey = new ConcurrentHashMap<>();
  /** The same switches by marker token. */
  private final Map<Long, Switch> byToken = new ConcurrentHashMap<>();
  private final AtomicLong tokens = new AtomicLong();
  /** Keys of objects sealed here for a move ({@link #seal}), with the seal that holds them. */
  private final Map<String, Object> sealed = new ConcurrentHashMap<>();
  /** The switch whose held messages this thread sends by the usual path now: its own sends are not held by it. */
  private static final ThreadLocal<Switch> DRAINING = new ThreadLocal<>();

  /** {@link OldWay#kind}: this node's cached route to the node the object lived on. */
  public static final int ROUTE = 1;
  /** {@link OldWay#kind}: this node's Message Follow of the object's earlier move away from here. */
  public static final int FOLLOW = 2;
  /**
   * {@link OldWay#kind}: Instance intent this node sent to another node while the Instance Spot was not here (to the
   * node placement picked, or to an earlier incarnation's owner), before an incarnation opened here.
   */
  public static final int SENT_AWAY = 4;

  /**
   * One old way by which this node's earlier messages to an object Ready here may still be coming back.
   *
   * @param kind {@link #ROUTE} or {@link #FOLLOW}.
   * @param via the node the marker is sent to when it is not the one this node's follow goes to (the cached route's
   *     owner), else null: what that node follows back here before the marker is earlier work.
   * @param sendMarker sends a flush marker that way; false when it could not (that way is closed: nothing more
   *     comes by it).
   * @param ended ends that way (drops the route or the follow); runs once, when the switch is over.
   */
  public record OldWay(int kind, NodeRid via, java.util.function.Predicate<Envelope.Msg> sendMarker,
      Runnable ended) {
  }

  /**
   * A message that came from a peer ({@code null} where a parameter of this type is given: a send of this node).
   *
   * @param followedFrom the peer it came from when it came by Message Follow (command 60 hops above 0), else null.
   */
  public record Inbound(NodeRid followedFrom) {
  }

  /** One switch: the messages held until its marker arrives. */
  private static final class Switch {
    final String key;
    final Address address;
    final long token;
    /**
     * For a switch to another node ({@link #turn}): the route read from the store, that the held messages take and
     * the cache adopts once the marker arrived; null for a switch to this node.
     */
    final RouteMesh.Route fresh;
    /** For a switch to this node: ends the old ways (drops the route or the follow) when released; else null. */
    final Runnable ended;
    /** For a switch to this node: the {@link OldWay#kind}s flushed by it and the switches it continues; else 0. */
    final int ways;
    /** Guarded by this. */
    final ArrayDeque<Envelope.Msg> held = new ArrayDeque<>();
    /** The node its marker went to ({@link OldWay#via}), or null. */
    final NodeRid via;
    /**
     * Guarded by this: messages {@link #via} followed back here while the marker was out, in arrival order; released
     * ahead of {@link #held}.
     */
    final ArrayDeque<Envelope.Msg> returned = new ArrayDeque<>();
    /** Guarded by this; true once released (the route dropped or turned, everything held delivered). */
    boolean done;
    /**
     * Guarded by this; true while what it held goes out by the usual path (the object was not Ready here at the
     * release): sends meanwhile still join {@link #held}, behind those, until it is empty.
     */
    boolean draining;

    Switch(final String key, final Address address, final long token, final RouteMesh.Route fresh,
        final Runnable ended, final int ways, final NodeRid via) {
      this.via = via;
      this.key = key;
      this.address = address;
      this.token = token;
      this.fresh = fresh;
      this.ended = ended;
      this.ways = ways;
    }
  }

  /**
   * @param rt the node's runtime (its mesh, cells, scheduler and virtual threads).
   */
  public RouteSwitches(final NodeRuntime rt) {
    this.rt = rt;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new Object();
    }
  }

  private Object stripe(final String key) {
    return stripes[(key.hashCode() & 0x7fff_ffff) % STRIPES];
  }

  /**
   * A send to an object that is not Ready here while this node's route cache names another node: it goes that way
   * (behind what this node sent before), unless a switch to this node is in progress, which holds it.
   *
   * @return true when sent by the old route or held; false when the caller delivers by the usual path (the route
   *     could not be used and was dropped).
   */
  public boolean sendByOldRoute(final String key, final RouteMesh mesh, final Address address,
      final Envelope.Msg envelope) {
    return sendOldWay(key, envelope, e -> forward(mesh, address, e));
  }

  /**
   * A send that goes the old way (this node's still-cached route, or its Message Follow of the object's earlier move
   * away from here), unless a switch of the object is in progress, which holds it instead. Under the key's stripe, as
   * the marker is sent: a message sent the old way behind a marker could reach the object after the switch released
   * this sender's later messages at the marker's turn, so while a switch runs nothing more goes the old way.
   *
   * @param key {@code spot:{id}} or {@code actor:{id}}.
   * @param envelope the message.
   * @param oldWay sends it the old way; false when it could not (the caller goes on by the usual path).
   * @return true when held or sent the old way; false when {@code oldWay} did not take it.
   */
  public boolean sendOldWay(final String key, final Envelope.Msg envelope,
      final java.util.function.Predicate<Envelope.Msg> oldWay) {
    return sendOldWay(key, envelope, null, oldWay);
  }

  /**
   * {@link #sendOldWay(String, Envelope.Msg, java.util.function.Predicate)}; {@code inbound}: the message came from
   * a peer, so a switch of this node's own route to another node ({@link #turn}) does not hold it (that switch
   * orders this node's senders only; holding a peer's message, a flush marker among them, could make two nodes'
   * switches wait on each other's markers until the marker deadline).
   */
  public boolean sendOldWay(final String key, final Envelope.Msg envelope, final Inbound inbound,
      final java.util.function.Predicate<Envelope.Msg> oldWay) {
    synchronized (stripe(key)) {
      return holdIfSwitching(key, envelope, inbound) || oldWay.test(envelope);
    }
  }

  /**
   * A send to an object Ready here while this node's route cache still names the node it lived on: starts the
   * switch (sends the marker that way) or joins it, holding {@code envelope}.
   *
   * @return true when held (or sent by the old route); false when the caller offers it to the local cell now (the
   *     switch just finished, or the marker could not be sent and the route was dropped).
   */
  public boolean holdForSwitch(final String key, final RouteMesh mesh, final Address address,
      final Envelope.Msg envelope) {
    return holdBehind(key, address, envelope, null, cachedWay(mesh, address));
  }

  /**
   * The old way of this node's cached route to the node {@code address} lived on: the marker goes behind what this
   * node sent that way; the way ends by dropping the route.
   *
   * @param mesh this node's mesh.
   * @param address the object.
   * @return that way ({@link #ROUTE}).
   */
  public static OldWay cachedWay(final RouteMesh mesh, final Address address) {
    return new OldWay(ROUTE, mesh.cachedOwner(address), marker -> {
      if (mesh.sendBehind(address, marker, false)) {
        return true;
      }
      mesh.dropRoute(address); // the old way is closed: nothing more comes by it
      return false;
    }, () -> mesh.dropRoute(address));
  }

  /**
   * A send to an object Ready here while this node's earlier messages to it may still be on their way back by
   * {@code way}: this node's follow of the object's earlier move away (Message Follow of its SpotWide aggregate), or
   * its cached route to the node it lived on ({@link #holdForSwitch}). Starts a switch whose marker goes that way, or
   * joins the running one, holding {@code envelope}; once the marker is back here the way ends ({@code way.ended}).
   *
   * @param key {@code spot:{id}} or {@code actor:{id}}.
   * @param address the target.
   * @param envelope the message.
   * @param inbound the peer's message ({@link Inbound}), or null for a send of this node.
   * @param way the old way (its marker sender returns false when it could not send, or when that way ended since the
   *     caller read it).
   * @return true when held (or, while the object is sealed, sent the old way); false when the caller offers it to the
   *     local cell now.
   */
  public boolean holdBehind(final String key, final Address address, final Envelope.Msg envelope,
      final Inbound inbound, final OldWay way) {
    synchronized (stripe(key)) {
      if (holdIfSwitching(key, envelope, inbound)) {
        return true;
      }
      if (byKey.containsKey(key)) {
        return false; // done: released, the old way ended
      }
      if (sealed.containsKey(key)) {
        // sealed for a move: no switch now. A sender's own message goes the old way, behind its earlier ones, and
        // comes back to follow the object; a peer's (it may have come by that way) goes into the sealed mailbox.
        return inbound == null && way.sendMarker().test(envelope);
      }
      final Switch started = begin(key, address, null, way, envelope);
      if (inbound != null && inbound.followedFrom() != null && returning(started, inbound.followedFrom())) {
        started.returned.add(started.held.poll()); // see holdIfSwitching
      }
      flush(started, way);
    }
    return true;
  }

  /**
   * Seals {@code keys} for a move of their objects away from here (spec 000 section 7's seal): from now on no switch
   * to this node starts for them (a send that would start one goes the old way instead, behind what went that way
   * before, and follows the object from here). Refused, with nothing sealed, while such a switch of one of them is
   * still waiting for its flush marker: the seal waits for it (a switch whose object moved on could wait for a marker
   * that another node's switch holds behind its own, each until the marker deadline).
   *
   * @param keys {@code spot:{id}} / {@code actor:{id}} of every participant.
   * @param owner the seal (for {@link #unseal}).
   * @return null when sealed; else the key whose switch runs.
   */
  public String seal(final java.util.Collection<String> keys, final Object owner) {
    final java.util.List<String> done = new java.util.ArrayList<>();
    for (String key : keys) {
      synchronized (stripe(key)) {
        final Switch running = byKey.get(key);
        if (running != null && running.fresh == null && !running.done && !running.draining) {
          unseal(done, owner);
          return key;
        }
        sealed.put(key, owner);
        done.add(key);
      }
    }
    return null;
  }

  /**
   * Ends {@link #seal}'s hold on {@code keys} (the seal was restored, or the objects moved away); keys another seal
   * holds now stay sealed.
   *
   * @param keys the keys given to {@link #seal}.
   * @param owner the seal.
   */
  public void unseal(final java.util.Collection<String> keys, final Object owner) {
    for (String key : keys) {
      sealed.remove(key, owner);
    }
  }

  /**
   * Under the key's stripe: sends {@code sw}'s marker by {@code way}, or releases {@code sw} at once when it could
   * not be sent.
   */
  private void flush(final Switch sw, final OldWay way) {
    final ReplySink answer = marker(sw);
    if (!way.sendMarker().test(new Envelope.Msg(markerOf(sw), answer, SessionBinder.ROUTE_FLUSH))) {
      release(sw, null);
      return;
    }
    // Normally released by the marker's turn first; a failed answer (the old owner did not know the object, its
    // connection closed, or the deadline passed) releases here.
    answer.future.whenComplete((v, failure) -> {
      if (failure != null && !sw.done) {
        NodeRuntime.LOG.warn("route_switch_released_early key={} held={} reason=\"{}\": the messages this node"
            + " sent by its old route may still be on their way", sw.key, sw.held.size(),
            String.valueOf(failure.getMessage()));
      }
      release(sw, null);
    });
  }

  /**
   * A send to an object that is not Ready here, whose expired cached route named another node, while the store now
   * names a third one (it moved from the node this node sent it to; {@link RouteMesh#forward}). What this node sent
   * the old way travels on through that node's Message Follow, a hop longer and under load seconds behind; sent
   * straight to the new owner, {@code envelope} would overtake it (spec 001 section 5.1 orders one connection only).
   * So it starts a switch: a flush marker goes the old way as a request, and this send and every later one to the
   * object are held here, in arrival order, until the marker's turn at the object answers it (or it fails: the old
   * way broke, so nothing more comes by it). Then the held messages go to the owner read now, in order, and the
   * cache adopts that route. No clock decides the order.
   *
   * @param mesh this node's mesh.
   * @param address the target, by id or ref.
   * @param old the expired route this node sent by (still cached).
   * @param fresh the route read from the store, naming another node.
   * @param envelope the message.
   * @return true when held; false when the caller sends by {@code fresh} now (another send's switch finished and the
   *     cache no longer holds {@code old}).
   */
  public boolean turn(final RouteMesh mesh, final Address address, final RouteMesh.Route old,
      final RouteMesh.Route fresh, final Envelope.Msg envelope) {
    final String key = Messaging.followKey(address);
    if (key == null) {
      return false;
    }
    synchronized (stripe(key)) {
      if (holdIfSwitching(key, envelope, null)) {
        return true;
      }
      if (!mesh.caches(address, old)) {
        return false;
      }
      final Switch started = begin(key, address, fresh, null, envelope);
      final ReplySink answer = marker(started);
      if (!mesh.sendBehind(address, new Envelope.Msg(markerOf(started), answer, SessionBinder.ROUTE_FLUSH), false)) {
        release(started, null); // the old way is closed: nothing more comes by it
        return true;
      }
      answer.future.whenComplete((v, failure) -> release(started, null));
    }
    return true;
  }

  /**
   * A send that reached the end of the usual path (the object is not Ready here): held when a switch of its object
   * is in progress. Any thread; a map read when no switch runs.
   *
   * @param address the target, by id or ref.
   * @param envelope the message.
   * @return true when held.
   */
  public boolean holdIfSwitching(final Address address, final Envelope.Msg envelope) {
    if (byKey.isEmpty()) {
      return false;
    }
    final String key = Messaging.followKey(address);
    if (key == null) {
      return false;
    }
    synchronized (stripe(key)) {
      return holdIfSwitching(key, envelope, null);
    }
  }

  /**
   * Under the key's stripe: registers a switch holding {@code first}. Started while this thread sends what an
   * earlier switch of the key held by the usual path, it takes the rest of those too, behind {@code first} and ahead
   * of anything sent since.
   */
  private Switch begin(final String key, final Address address, final RouteMesh.Route fresh, final OldWay way,
      final Envelope.Msg first) {
    final Switch started = way == null ? new Switch(key, address, tokens.incrementAndGet(), fresh, null, 0, null)
        : new Switch(key, address, tokens.incrementAndGet(), null, way.ended(), way.kind(), way.via());
    started.held.add(first);
    final Switch prior = byKey.put(key, started);
    byToken.put(started.token, started);
    if (prior != null && prior == DRAINING.get()) {
      synchronized (prior) {
        started.held.addAll(prior.held);
        prior.held.clear();
        prior.done = true;
        byToken.remove(prior.token, prior);
      }
    }
    return started;
  }

  /** The marker's reply sink, with its deadline ({@value #FLUSH_WITHIN_MS} ms) attached. */
  private ReplySink marker(final Switch sw) {
    final ReplySink answer = new ReplySink(Deadline.after(Duration.ofMillis(FLUSH_WITHIN_MS)), Object.class,
        "route flush marker of " + sw.key);
    rt.attachDeadline(answer.future, answer.deadline, () -> answer.description + " did not come back");
    return answer;
  }

  private String markerOf(final Switch sw) {
    return rt.nodeRid().hex() + "/" + sw.token;
  }

  /**
   * Under the key's stripe: holds {@code envelope} when a switch of {@code key} is in progress. Never the switch's
   * own flush marker: it came back here by the old way (a node this node sent to followed it back, the object having
   * moved here since), so everything sent that way before it is here already; held, it would wait for itself until
   * the marker deadline. The caller delivers it to the object's turn, which releases the switch. Never a peer's
   * message ({@code inbound}) in a switch to another node ({@link #turn}).
   */
  private boolean holdIfSwitching(final String key, final Envelope.Msg envelope, final Inbound inbound) {
    final Switch running = byKey.get(key);
    if (running == null || running == DRAINING.get() || inbound != null && running.fresh != null
        || envelope.sessionWork() == SessionBinder.ROUTE_FLUSH && markerOf(running).equals(envelope.payload())) {
      return false;
    }
    synchronized (running) {
      if (running.done) {
        return false;
      }
      if (inbound != null && inbound.followedFrom() != null && !running.draining && returning(running,
          inbound.followedFrom())) {
        // came back by an old way still open (its node followed it here): earlier work of its sender, so ahead of
        // what the switch held since it began (a message of this node sent that way just before the switch began
        // comes back this way), and still behind every old way's marker (a sender of that node may have sent
        // earlier ones that way too)
        running.returned.add(envelope);
        return true;
      }
      running.held.add(envelope);
      return true;
    }
  }

  /**
   * Whether a message {@code from} followed here comes back by one of {@code sw}'s old ways: the node its marker
   * went to, or the one this node's route cache still names for the object (a switch by the follow, to be continued
   * by the route).
   */
  private boolean returning(final Switch sw, final NodeRid from) {
    final RouteMesh mesh = rt.mesh();
    return from.equals(sw.via) || mesh != null && from.equals(mesh.cachedOwner(sw.address));
  }

  private boolean forward(final RouteMesh mesh, final Address address, final Envelope.Msg envelope) {
    if (mesh.sendBehind(address, envelope)) {
      return true;
    }
    mesh.dropRoute(address);
    return false;
  }

  /**
   * A flush marker reached {@code cell}'s turn on this node: when this node sent it, the switch completes (what it
   * held goes into the mailbox behind everything the marker followed); a marker of another node is dropped.
   *
   * @param cell the object whose turn reached the marker.
   * @param marker "{RID hex}/{token}".
   * @param answer the marker's reply sink (answered after the release), or null.
   */
  public void markerArrived(final Cell cell, final Object marker, final ReplySink answer) {
    try {
      markerArrived(cell, marker);
    } finally {
      if (answer != null) {
        answer.complete(Boolean.TRUE);
      }
    }
  }

  private void markerArrived(final Cell cell, final Object marker) {
    final String text = String.valueOf(marker);
    final int slash = text.indexOf('/');
    if (slash <= 0 || !text.substring(0, slash).equals(rt.nodeRid().hex())) {
      return; // another node's marker: the object moved on from that node's point of view
    }
    final Switch sw;
    try {
      sw = byToken.get(Long.parseLong(text.substring(slash + 1)));
    } catch (NumberFormatException malformed) {
      return;
    }
    if (sw != null) {
      release(sw, cell);
    }
  }

  /**
   * Delivers what {@code sw} held, in order, ends the old way (drops the cached route or the follow) and ends the
   * switch. Into {@code cell}'s mailbox when it is given and Ready (never fails for capacity: these were accepted
   * already); otherwise the rest goes by the usual path on a virtual thread (the object moved on meanwhile), and the
   * switch keeps holding later sends behind it until it is all sent.
   */
  private void release(final Switch sw, final Cell cell) {
    if (cell == null && sw.fresh != null) {
      rt.async(() -> {
        turnOver(sw);
        return null;
      });
      return;
    }
    synchronized (stripe(sw.key)) {
      release(sw, cell != null ? cell : rt.messaging().localCell(sw.address), true);
    }
  }

  /**
   * Under the key's stripe: {@link #release(Switch, Cell)} with {@code target} the object's cell here (or null). When
   * the object is Ready here and another old way of it is still open ({@link Messaging#nextOldWay}: a switch by the
   * cached route while this node also follows the object's earlier move away, or the other way round), a switch by
   * that way takes over what this one held, in order; the old ways end together when the last one is flushed.
   */
  private void release(final Switch sw, final Cell target, final boolean chain) {
    synchronized (sw) {
      if (sw.done || sw.draining) {
        return;
      }
      final OldWay next = chain && sw.fresh == null && target != null && target.state == CellState.READY
          ? rt.messaging().nextOldWay(byId(sw.address), target, sw.ways) : null;
      if (next != null) {
        final Runnable before = sw.ended;
        final Switch then = new Switch(sw.key, sw.address, tokens.incrementAndGet(), null, () -> {
          next.ended().run();
          if (before != null) {
            before.run();
          }
        }, sw.ways | next.kind(), next.via());
        then.returned.addAll(sw.returned);
        then.held.addAll(sw.held);
        sw.returned.clear();
        sw.held.clear();
        end(sw);
        byKey.put(then.key, then);
        byToken.put(then.token, then);
        flush(then, next);
        return;
      }
      if (!sw.returned.isEmpty()) { // what came back by an old way goes first
        final ArrayDeque<Envelope.Msg> later = new ArrayDeque<>(sw.held);
        sw.held.clear();
        sw.held.addAll(sw.returned);
        sw.held.addAll(later);
        sw.returned.clear();
      }
      while (!sw.held.isEmpty() && target != null && target.state == CellState.READY
          && target.admitEnvelope(sw.held.peek()) != dev.spotkit.mailbox.OfferResult.RELEASED) {
        sw.held.poll();
      }
      final RouteMesh mesh = rt.mesh();
      if (sw.ended != null) {
        sw.ended.run();
      } else if (mesh != null) {
        mesh.dropRoute(sw.address);
      }
      if (sw.held.isEmpty()) {
        end(sw);
        return;
      }
      sw.draining = true; // the cell is gone: the rest by the usual path, in order, behind nothing it overtakes
    }
    rt.async(() -> {
      drain(sw);
      return null;
    });
  }

  /** The object's address by id for an Instance Spot's switch (its old ways are looked up by id), else as given. */
  private static Address byId(final Address address) {
    return address instanceof Address.Instance instance ? new Address.SpotById(instance.id()) : address;
  }

  /** Under {@code sw}'s monitor: the switch is over; a later send goes by the usual path. */
  private void end(final Switch sw) {
    sw.done = true;
    byKey.remove(sw.key, sw);
    byToken.remove(sw.token, sw);
  }

  /**
   * Sends what {@code sw} held by the usual path, one after the other, with what joins it meanwhile; ends the switch
   * when none is left, or when one of these sends started another switch of the object (which took the rest). On a
   * virtual thread (a send may dial).
   */
  private void drain(final Switch sw) {
    DRAINING.set(sw);
    try {
      sendHeld(sw, held -> rt.messaging().redeliver(sw.address, held), () -> { });
    } finally {
      DRAINING.remove();
    }
  }

  /**
   * Ends a switch to another node ({@link #turn}): sends what it held, in order, by the route read when it began;
   * sends that arrive meanwhile join the end of the queue. When the queue is empty the cache adopts that route and the
   * switch ends, so a later send goes straight there, behind all of them. On a virtual thread (a send may dial).
   */
  private void turnOver(final Switch sw) {
    final RouteMesh mesh = rt.mesh();
    sendHeld(sw, held -> {
      if (mesh == null) {
        throw rt.shuttingDown("send to " + sw.address);
      }
      mesh.sendTo(sw.fresh, sw.address, held);
    }, () -> {
      if (mesh != null) {
        mesh.adopt(sw.address, sw.fresh);
      }
    });
  }

  /**
   * Sends {@code sw}'s held messages one at a time with {@code send} (a typed failure is the message's sender's), with
   * what joins the queue meanwhile; when it is empty, runs {@code atEnd} and ends the switch. Returns at once when the
   * switch ended elsewhere.
   */
  private void sendHeld(final Switch sw, final java.util.function.Consumer<Envelope.Msg> send, final Runnable atEnd) {
    while (true) {
      final Envelope.Msg next;
      synchronized (sw) {
        if (sw.done) {
          return;
        }
        next = sw.held.poll();
        if (next == null) {
          atEnd.run();
          end(sw);
          return;
        }
      }
      try {
        send.accept(next);
      } catch (SpotkitException e) {
        failHeld(sw, next, e);
      }
    }
  }

  private void failHeld(final Switch sw, final Envelope.Msg held, final SpotkitException e) {
    if (held.reply() != null) {
      held.reply().fail(e);
    } else {
      rt.deadLetters().record(e.kind().name().toLowerCase(java.util.Locale.ROOT), "one-way message to "
          + sw.address + " dropped after its route switch: " + e.getMessage());
    }
  }
}
