package dev.spotkit.core.internal.mesh;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.ReplySink;
import dev.spotkit.core.internal.session.SessionBinder;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
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

  /** One switch: the messages held until its marker arrives. */
  private static final class Switch {
    final String key;
    final Address address;
    final long token;
    /** Guarded by this. */
    final ArrayDeque<Envelope.Msg> held = new ArrayDeque<>();
    /** Guarded by this; true once released (the route dropped, everything held delivered). */
    boolean done;

    Switch(final String key, final Address address, final long token) {
      this.key = key;
      this.address = address;
      this.token = token;
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
    synchronized (stripe(key)) {
      if (holdIfSwitching(key, envelope)) {
        return true;
      }
      return forward(mesh, address, envelope);
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
    final Switch started;
    synchronized (stripe(key)) {
      if (holdIfSwitching(key, envelope)) {
        return true;
      }
      if (byKey.containsKey(key)) {
        return false; // done: released, the route dropped
      }
      started = new Switch(key, address, tokens.incrementAndGet());
      started.held.add(envelope);
      byKey.put(key, started);
      byToken.put(started.token, started);
      final String marker = rt.nodeRid().hex() + "/" + started.token;
      final ReplySink answer = new ReplySink(Deadline.after(Duration.ofMillis(FLUSH_WITHIN_MS)), Object.class,
          "route flush marker of " + key);
      rt.attachDeadline(answer.future, answer.deadline, () -> answer.description + " did not come back");
      if (!forward(mesh, address, new Envelope.Msg(marker, answer, SessionBinder.ROUTE_FLUSH))) {
        release(started, null);
        return true;
      }
      // Normally released by the marker's turn first; a failed answer (the old owner did not know the object, its
      // connection closed, or the deadline passed) releases here.
      answer.future.whenComplete((v, failure) -> {
        if (failure != null && !started.done) {
          NodeRuntime.LOG.warn("route_switch_released_early key={} held={} reason=\"{}\": the messages this node"
              + " sent by its old route may still be on their way", key, started.held.size(),
              String.valueOf(failure.getMessage()));
        }
        release(started, null);
      });
    }
    return true;
  }

  /** Under the key's stripe: holds {@code envelope} when a switch of {@code key} is in progress. */
  private boolean holdIfSwitching(final String key, final Envelope.Msg envelope) {
    final Switch running = byKey.get(key);
    if (running == null) {
      return false;
    }
    synchronized (running) {
      if (running.done) {
        return false;
      }
      running.held.add(envelope);
      return true;
    }
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
   * Delivers what {@code sw} held, in order, drops the cached route and ends the switch. Into {@code cell}'s
   * mailbox when it is given and Ready (never fails for capacity: these were accepted already); otherwise by the
   * usual path on a virtual thread (the object moved on meanwhile).
   */
  private void release(final Switch sw, final Cell cell) {
    final List<Envelope.Msg> later;
    synchronized (sw) {
      if (sw.done) {
        return;
      }
      final RouteMesh mesh = rt.mesh();
      final Cell target = cell != null ? cell : rt.messaging().localCell(sw.address);
      final java.util.ArrayList<Envelope.Msg> rest = new java.util.ArrayList<>();
      for (Envelope.Msg held : sw.held) {
        if (!rest.isEmpty() || target == null || target.state != CellState.READY
            || target.admitEnvelope(held) == dev.spotkit.mailbox.OfferResult.RELEASED) {
          rest.add(held); // the cell is gone: by the usual path, in order, behind nothing it overtakes
        }
      }
      later = rest;
      sw.held.clear();
      if (mesh != null) {
        mesh.dropRoute(sw.address);
      }
      sw.done = true;
      byKey.remove(sw.key, sw);
      byToken.remove(sw.token, sw);
    }
    if (!later.isEmpty()) {
      rt.async(() -> {
        for (Envelope.Msg held : later) {
          try {
            rt.messaging().redeliver(sw.address, held);
          } catch (SpotkitException e) {
            if (held.reply() != null) {
              held.reply().fail(e);
            } else {
              rt.deadLetters().record(e.kind().name().toLowerCase(java.util.Locale.ROOT), "one-way message to "
                  + sw.address + " dropped after its route switch: " + e.getMessage());
            }
          }
        }
        return null;
      });
    }
  }
}
