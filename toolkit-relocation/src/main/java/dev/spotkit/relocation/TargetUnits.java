package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.RelocationIdentity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The target node's relocation units, routed by relocation identity (spec 001 section 3): a frame is linked to a
 * unit only when its identity equals the unit's; anything else is discarded (REL-08). At most one preparation
 * exists per object: a Restore with a new identity aborts an unfinished preparation of the same object and the
 * later attempt wins (spec 000 section 4.2, REL-32); a preparation past its relay-ready reply is not aborted, and
 * the newer identity is refused with {@link FailureCode#BUSY}. Terminal units are kept so late answers for their
 * identity are recognised and change nothing (REL-21).
 *
 * <h2>Driving this machine</h2>
 * Feed every target-side input to {@link #handle} and perform the returned actions in order. Note: not
 * thread-safe; one driver calls it serially.
 */
public final class TargetUnits {
  private final RelocationSettings settings;
  private final Map<RelocationIdentity, TargetUnit> byIdentity = new LinkedHashMap<>();
  private final Map<String, TargetUnit> byObject = new LinkedHashMap<>();
  private long nowMs;

  /**
   * Creates an empty registry.
   *
   * @param settings settings for every unit.
   * @param nowMs the driver's current time in ms.
   */
  public TargetUnits(final RelocationSettings settings, final long nowMs) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.nowMs = nowMs;
  }

  /**
   * Consumes one event.
   *
   * @param event the input.
   * @return the actions to perform, in order.
   */
  public List<TargetAction> handle(final TargetEvent event) {
    return switch (event) {
      case TargetEvent.RestoreRequested r -> onRestore(r);
      case TargetEvent.DirectMessageArrived d -> onDirect(d);
      case TargetEvent.ClockAdvanced c -> onClock(c);
      case TargetEvent.ChunkArrived c -> route(c.identity(), c);
      case TargetEvent.RestoreFinished f -> route(f.identity(), f);
      case TargetEvent.RestoreFailed f -> route(f.identity(), f);
      case TargetEvent.RelayArrived r -> route(r.identity(), r);
      case TargetEvent.CutoverArrived c -> route(c.identity(), c);
      case TargetEvent.CasAnswered a -> route(a.identity(), a);
      case TargetEvent.CasIndeterminate i -> route(i.identity(), i);
      case TargetEvent.StoreReadAnswered a -> route(a.identity(), a);
      case TargetEvent.StoreReadFailed f -> route(f.identity(), f);
      case TargetEvent.RelayReadySent s -> route(s.identity(), s);
    };
  }

  /**
   * Consumes one event stamped with the time it arrived ({@link RelocationPump}). Only a clock tick moves the units'
   * clock (to {@code max(nowMs, arrivedAtMs)}); any other input is judged at the clock the units already have, which
   * is the time the driver has caught up with: a frame read late by a busy event loop, or handled late by a busy
   * lane, must not move the clock past a cutover still queued behind it (spec 001 section 4.4 measures the cutover
   * wait to the cutover's arrival; a driver ticks only once its intake caught up with the tick's time). For any
   * other input the stamp is not used.
   *
   * @param event the input.
   * @param arrivedAtMs when it arrived, in the driver's monotonic ms (the pump's stamp).
   * @return the actions to perform, in order.
   */
  public List<TargetAction> handle(final TargetEvent event, final long arrivedAtMs) {
    if (event instanceof TargetEvent.ClockAdvanced c) {
      return handle(new TargetEvent.ClockAdvanced(Math.max(c.nowMs(), arrivedAtMs)));
    }
    return handle(event);
  }

  private List<TargetAction> onRestore(final TargetEvent.RestoreRequested r) {
    final TargetUnit known = byIdentity.get(r.identity());
    if (known != null) {
      return known.handle(r); // The same identity: existing progress, or a conflict failure (REL-09).
    }
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnit current = byObject.get(r.objectId());
    if (current != null && !current.isTerminal()) {
      // Spec 002 section 8.1: targetAttemptGeneration is compared for equality only, never ordered: another
      // attempt is another identity, and the later arrival wins (spec 000 section 4.2).
      if (current.stage() == Stage.TARGET_RESTORING) {
        out.addAll(current.supersede()); // REL-32: the existing prepare is aborted; the later attempt wins.
      } else {
        out.add(new Action.Log(Action.Level.WARNING, "relocation_busy", "Restore " + r.identity() + " for "
            + r.objectId() + " refused: " + current.identity() + " is in " + current.stage().specName()));
        out.add(new Action.Send(r.connectionId(), new Frame.Failed(r.identity(), FailureCode.BUSY)));
        return out;
      }
    }
    final TargetUnit unit = new TargetUnit(r.identity(), settings, nowMs);
    byIdentity.put(r.identity(), unit);
    byObject.put(r.objectId(), unit);
    out.addAll(unit.handle(r));
    return out;
  }

  private List<TargetAction> route(final RelocationIdentity identity, final TargetEvent event) {
    final TargetUnit unit = byIdentity.get(identity);
    if (unit == null) {
      // REL-08: a different identity is never linked to an in-progress assembly.
      return List.of(new Action.Log(Action.Level.WARNING, "unknown_relocation",
          event.getClass().getSimpleName() + " for unknown identity " + identity + " discarded"));
    }
    return unit.handle(event);
  }

  private List<TargetAction> onDirect(final TargetEvent.DirectMessageArrived d) {
    final TargetUnit unit = byObject.get(d.objectId());
    if (unit == null) {
      return List.of(new Action.FailMessage(d.message(), "NotFound"));
    }
    return unit.handle(d);
  }

  private List<TargetAction> onClock(final TargetEvent.ClockAdvanced c) {
    nowMs = Math.max(nowMs, c.nowMs());
    final List<TargetAction> out = new ArrayList<>();
    for (final TargetUnit unit : byIdentity.values()) {
      if (!unit.isTerminal()) {
        out.addAll(unit.handle(c));
      }
    }
    return out;
  }

  /**
   * The unit of an identity, terminal ones included.
   *
   * @param identity the identity.
   * @return the unit, or null when none was created for it.
   */
  public TargetUnit unit(final RelocationIdentity identity) {
    return byIdentity.get(identity);
  }

  /**
   * The current (latest) unit of an object.
   *
   * @param objectId the object.
   * @return the unit, or null.
   */
  public TargetUnit unitOf(final String objectId) {
    return byObject.get(objectId);
  }

  /**
   * The earliest deadline over all live units.
   *
   * @return ms, or {@link Long#MAX_VALUE}.
   */
  public long nextDeadlineMs() {
    long next = Long.MAX_VALUE;
    for (final TargetUnit unit : byIdentity.values()) {
      next = Math.min(next, unit.nextDeadlineMs());
    }
    return next;
  }
}
