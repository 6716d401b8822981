package dev.spotkit.relocation.session;

import dev.spotkit.relocation.Action.Level;
import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.session.SessionAction.CloseReason;
import dev.spotkit.relocation.wire.ActorRoute;
import dev.spotkit.relocation.wire.Fields;
import dev.spotkit.relocation.wire.SessionBinding;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import dev.spotkit.relocation.wire.SessionRouteAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The Session owner's side of one Session-Actor binding's relocation barrier (spec 001 sections 4.1, 7, 9 and 12;
 * FACTS.md "Sessions"; REL-26, REL-28, REL-29, REL-31, MEM-39). Pure: no I/O, no clock, no Location Store (the
 * Session owner never reads or writes it, spec 001 section 7).
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>A command 42 for this binding ({@link SessionBinding} equal) and its current route seals it and is
 *       answered with 43. While sealed, session messages are held in arrival order; nothing else is counted (no
 *       per-message reply, no sequence number, spec 001 section 11).</li>
 *   <li>The matching 44 commit, in one step: {@link SessionAction.SwitchRoute}, then every held message to the
 *       target route in order, then the seal is released; later messages go to the target route after them.</li>
 *   <li>The matching 44 abort releases only that seal and resubmits the held messages to the source route in
 *       order; the route does not change.</li>
 *   <li>A 44 matches when its RelocationId, coordinator fence and binding equal the seal's; its commit
 *       {@code previousAuthorityOwnerGeneration} (abort: {@code currentAuthorityOwnerGeneration}) must equal the
 *       sealed route's AuthorityOwnerGeneration, which is how the sealed binding is known to be the one
 *       rerouted.</li>
 *   <li>SessionRelocationSealTimeout ({@link #DEFAULT_SEAL_TIMEOUT_MS}) runs from the {@code atMs} of the
 *       installing {@link SessionEvent.SealArrived}. Any event stamped at or after install + timeout first
 *       closes the session ({@link SessionAction.CloseSession} listing the dropped held messages) and cleans
 *       binding, held messages and seal; an event stamped earlier is in time, however late it is processed.</li>
 *   <li>Anything else changes nothing and only logs (table below).</li>
 * </ul>
 *
 * <table>
 *   <caption>Inputs that are not an edge</caption>
 *   <tr><th>input</th><th>log</th></tr>
 *   <tr><td>44 after the timeout; 44 for another relocation, session, binding generation, Actor or
 *       ObjectGeneration</td><td>WARNING {@value #LATE_SESSION_ROUTE_UPDATE}</td></tr>
 *   <tr><td>44 identical to the one already applied</td><td>WARNING {@value #SESSION_ROUTE_ALREADY_APPLIED}</td></tr>
 *   <tr><td>44 for the sealed or applied relocation and binding, but with other content</td>
 *       <td>ERROR {@value #SESSION_ROUTE_CONFLICT}</td></tr>
 *   <tr><td>42 identical to the installed seal</td><td>none; 43 is sent again</td></tr>
 *   <tr><td>42 other than the installed seal while sealed</td><td>ERROR {@value #SESSION_SEAL_CONFLICT}</td></tr>
 *   <tr><td>42 for another binding or route, for a finished relocation, or after the close</td>
 *       <td>WARNING {@value #STALE_SESSION_SEAL}</td></tr>
 * </table>
 *
 * <h2>Driving this machine</h2>
 * One driver per binding calls {@link #handle} serially, with events in the order it read them and stamps that do
 * not decrease; it performs the returned actions in list order before the next call, then arms its timer for
 * {@link #nextDeadlineMs()} and feeds {@link SessionEvent.ClockAdvanced} when it fires (a spurious one is a
 * no-op). After a {@link SessionAction.CloseSession} the driver stops delivering session messages; one delivered
 * anyway is returned in a further {@code CloseSession}.
 *
 * <p>Note: not thread-safe; only the one driver touches it.
 */
public final class SessionBarrier {

  /** Default SessionRelocationSealTimeout: 3,000 ms from the seal's install (spec 001 section 12). */
  public static final long DEFAULT_SEAL_TIMEOUT_MS = 3_000;
  /** Warning: a command 44 after the timeout, or for another relocation or binding (REL-29). */
  public static final String LATE_SESSION_ROUTE_UPDATE = "late_session_route_update";
  /** Warning: a command 44 identical to the one already applied. */
  public static final String SESSION_ROUTE_ALREADY_APPLIED = "session_route_already_applied";
  /** Error: a command 44 for this relocation and binding that contradicts the seal or the applied update. */
  public static final String SESSION_ROUTE_CONFLICT = "session_route_conflict";
  /** Error: a command 42 that contradicts the installed seal. */
  public static final String SESSION_SEAL_CONFLICT = "session_seal_conflict";
  /** Warning: a command 42 for another binding or route, a finished relocation, or a closed session. */
  public static final String STALE_SESSION_SEAL = "stale_session_seal";

  private final SessionBinding binding;
  private final long sealTimeoutMs;
  private BarrierStage stage = BarrierStage.OPEN;
  private ActorRoute route;
  /** The installed seal; null unless SEALED. */
  private SessionRelocationFrame.Seal seal;
  private long sealedAtMs;
  /** Session messages held while SEALED, arrival order. */
  private final List<Message> held = new ArrayList<>();
  /** The last command 44 applied, for duplicate detection; null before the first. */
  private SessionRelocationFrame.Route lastApplied;
  /**
   * A command 44 abort for this binding that arrived while no seal of its relocation was installed (the source gave
   * up waiting for 43 and aborted before its 42 was read here); a 42 of that relocation arriving later is stale and
   * must not seal the binding, which no 44 would ever release. Null when none.
   */
  private SessionRelocationFrame.Route abortedUnsealed;
  private long transitions;

  /**
   * A barrier for one binding, open on {@code route}.
   *
   * @param binding the binding this Session owner holds (session owner, SessionRid, binding generation, ActorId,
   *     ObjectGeneration).
   * @param route the binding's current route.
   * @param sealTimeoutMs SessionRelocationSealTimeout in ms, 1..2^63-1.
   * @throws IllegalArgumentException when a part is null or the timeout is not positive.
   */
  public SessionBarrier(final SessionBinding binding, final ActorRoute route, final long sealTimeoutMs) {
    this.binding = Fields.present("binding", binding);
    this.route = Fields.present("route", route);
    if (sealTimeoutMs <= 0) {
      throw new IllegalArgumentException("sealTimeoutMs " + sealTimeoutMs + " must be positive (default "
          + DEFAULT_SEAL_TIMEOUT_MS + " ms)");
    }
    this.sealTimeoutMs = sealTimeoutMs;
  }

  /**
   * A barrier with the default timeout of {@value #DEFAULT_SEAL_TIMEOUT_MS} ms.
   *
   * @param binding the binding this Session owner holds.
   * @param route the binding's current route.
   * @throws IllegalArgumentException when a part is null.
   */
  public SessionBarrier(final SessionBinding binding, final ActorRoute route) {
    this(binding, route, DEFAULT_SEAL_TIMEOUT_MS);
  }

  /**
   * Processes one event.
   *
   * @param event the input, stamped by the driver.
   * @return the actions to perform in order; empty when nothing is to be done.
   * @throws IllegalArgumentException when {@code event} is null.
   */
  public List<SessionAction> handle(final SessionEvent event) {
    Fields.present("event", event);
    final List<SessionAction> out = new ArrayList<>();
    final boolean expired = stage == BarrierStage.SEALED && event.atMs() - sealedAtMs >= sealTimeoutMs;
    if (expired) {
      expire(event instanceof SessionEvent.ClientMessageArrived m ? m.message() : null, out);
    }
    switch (event) {
      case SessionEvent.SealArrived s -> onSeal(s.seal(), s.atMs(), out);
      case SessionEvent.RouteArrived r -> onRoute(r.route(), out);
      case SessionEvent.ClientMessageArrived m -> {
        if (!expired) {
          onClientMessage(m.message(), out);
        }
      }
      case SessionEvent.ClockAdvanced c -> {
        // Expiry, if due, was handled above; otherwise a spurious timer does nothing.
      }
    }
    return out;
  }

  private void expire(final Message arriving, final List<SessionAction> out) {
    moveTo(BarrierStage.Trigger.SEAL_EXPIRED);
    final List<Message> dropped = new ArrayList<>(held);
    if (arriving != null) {
      dropped.add(arriving);
    }
    held.clear();
    seal = null;
    out.add(new SessionAction.CloseSession(CloseReason.SEAL_TIMEOUT, dropped));
  }

  private void onClientMessage(final Message message, final List<SessionAction> out) {
    switch (stage) {
      case OPEN -> out.add(new SessionAction.ForwardToActor(route, message));
      case SEALED -> held.add(message);
      case CLOSED -> out.add(new SessionAction.CloseSession(CloseReason.SEAL_TIMEOUT, List.of(message)));
    }
  }

  private void onSeal(final SessionRelocationFrame.Seal s, final long atMs, final List<SessionAction> out) {
    if (stage == BarrierStage.CLOSED) {
      log(out, Level.WARNING, STALE_SESSION_SEAL, "session closed at the seal timeout; seal of " + s.relocationId()
          + " ignored");
    } else if (!s.binding().equals(binding)) {
      log(out, Level.WARNING, STALE_SESSION_SEAL, "seal names binding " + s.binding() + ", this is " + binding);
    } else if (stage == BarrierStage.SEALED) {
      if (s.equals(seal)) {
        out.add(new SessionAction.SendSealed(SessionRelocationFrame.Sealed.answering(seal)));
      } else {
        log(out, Level.ERROR, SESSION_SEAL_CONFLICT, "sealed by " + seal + "; conflicting seal " + s);
      }
    } else if (abortedUnsealed != null && s.sameRelocation(abortedUnsealed)) {
      log(out, Level.WARNING, STALE_SESSION_SEAL, "relocation " + s.relocationId() + " was aborted before its seal"
          + " arrived; seal ignored");
    } else if (lastApplied != null && s.sameRelocation(lastApplied)) {
      log(out, Level.WARNING, STALE_SESSION_SEAL, "relocation " + s.relocationId() + " already ended with "
          + lastApplied.action());
    } else if (!s.currentRoute().equals(route)) {
      log(out, Level.WARNING, STALE_SESSION_SEAL, "seal names route " + s.currentRoute() + ", the binding is on "
          + route);
    } else {
      moveTo(BarrierStage.Trigger.SEAL_INSTALLED);
      seal = s;
      sealedAtMs = atMs;
      out.add(new SessionAction.SendSealed(SessionRelocationFrame.Sealed.answering(s)));
    }
  }

  private void onRoute(final SessionRelocationFrame.Route r, final List<SessionAction> out) {
    switch (stage) {
      case CLOSED -> log(out, Level.WARNING, LATE_SESSION_ROUTE_UPDATE, "route update of " + r.relocationId()
          + " after the seal timeout closed the session");
      case SEALED -> {
        if (!addressedTo(r, seal)) {
          log(out, Level.WARNING, LATE_SESSION_ROUTE_UPDATE, "route update " + r + " does not match seal " + seal);
        } else if (fromGeneration(r.action()) != route.authorityOwnerGeneration()) {
          log(out, Level.ERROR, SESSION_ROUTE_CONFLICT, "route update " + r.action() + " does not reroute the "
              + "sealed route " + route);
        } else {
          apply(r, out);
        }
      }
      case OPEN -> {
        if (lastApplied == null || !addressedTo(r, lastApplied)) {
          if (r.binding().equals(binding) && r.action() instanceof SessionRouteAction.Abort) {
            abortedUnsealed = r;
          }
          log(out, Level.WARNING, LATE_SESSION_ROUTE_UPDATE, "route update " + r + " matches no seal");
        } else if (r.equals(lastApplied)) {
          log(out, Level.WARNING, SESSION_ROUTE_ALREADY_APPLIED, "route update of " + r.relocationId()
              + " already applied");
        } else {
          log(out, Level.ERROR, SESSION_ROUTE_CONFLICT, "applied " + lastApplied + "; conflicting " + r);
        }
      }
    }
  }

  /** The one serial step of a matching 44: reroute (commit), submit held in order, release the seal. */
  private void apply(final SessionRelocationFrame.Route r, final List<SessionAction> out) {
    switch (r.action()) {
      case SessionRouteAction.Commit c -> {
        moveTo(BarrierStage.Trigger.COMMIT_APPLIED);
        out.add(new SessionAction.SwitchRoute(route, c.target()));
        route = c.target();
      }
      case SessionRouteAction.Abort a -> moveTo(BarrierStage.Trigger.ABORT_APPLIED);
    }
    for (final Message m : held) {
      out.add(new SessionAction.ForwardToActor(route, m));
    }
    held.clear();
    seal = null;
    lastApplied = r;
  }

  private static boolean addressedTo(final SessionRelocationFrame.Route r, final SessionRelocationFrame other) {
    return r.sameRelocation(other) && r.binding().equals(other.binding());
  }

  private static long fromGeneration(final SessionRouteAction action) {
    return switch (action) {
      case SessionRouteAction.Commit c -> c.previousAuthorityOwnerGeneration();
      case SessionRouteAction.Abort a -> a.currentAuthorityOwnerGeneration();
    };
  }

  private void moveTo(final BarrierStage.Trigger trigger) {
    stage = stage.after(trigger).orElseThrow(() -> new IllegalStateException("no edge " + trigger + " from "
        + stage + " (BarrierStage table); this is a SessionBarrier bug"));
    transitions++;
  }

  private static void log(final List<SessionAction> out, final Level level, final String code,
      final String detail) {
    out.add(new SessionAction.Log(level, code, detail));
  }

  /**
   * The stage.
   *
   * @return OPEN, SEALED or CLOSED.
   */
  public BarrierStage stage() {
    return stage;
  }

  /**
   * The binding this barrier holds; relocation never changes it (ActorId and ObjectGeneration are kept, MEM-39).
   *
   * @return the binding.
   */
  public SessionBinding binding() {
    return binding;
  }

  /**
   * The binding's current route: the source until a commit, then the target.
   *
   * @return the route session messages are submitted on when not sealed.
   */
  public ActorRoute route() {
    return route;
  }

  /**
   * The installed seal.
   *
   * @return the command 42 while SEALED, else empty.
   */
  public Optional<SessionRelocationFrame.Seal> seal() {
    return Optional.ofNullable(seal);
  }

  /**
   * The held messages.
   *
   * @return a copy, arrival order; empty unless SEALED.
   */
  public List<Message> held() {
    return List.copyOf(held);
  }

  /**
   * When the seal times out.
   *
   * @return the seal's arrival stamp plus the timeout in ms (saturating at 2^63-1) while SEALED, else empty.
   */
  public OptionalLong nextDeadlineMs() {
    if (stage != BarrierStage.SEALED) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(sealedAtMs > Long.MAX_VALUE - sealTimeoutMs ? Long.MAX_VALUE : sealedAtMs + sealTimeoutMs);
  }

  /**
   * How many stage changes happened (the golden receiver cases' {@code stateTransitions}).
   *
   * @return 0 or more.
   */
  public long transitions() {
    return transitions;
  }
}
