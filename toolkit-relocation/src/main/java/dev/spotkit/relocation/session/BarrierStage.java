package dev.spotkit.relocation.session;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * The stages of one binding's relocation barrier and the one table of edges between them (STYLE.md section 7
 * rule 7). Every stage change of {@link SessionBarrier} goes through {@link #after}; an input that is not an edge
 * (a duplicate, stale or late frame) only logs and leaves the stage alone.
 *
 * <pre>
 * OPEN   --SEAL_INSTALLED--&gt; SEALED   (command 42 for this binding; reply 43)
 * SEALED --COMMIT_APPLIED--&gt; OPEN     (matching 44 commit: switch route, submit held, release seal)
 * SEALED --ABORT_APPLIED---&gt; OPEN     (matching 44 abort: release seal, resubmit held to the source route)
 * SEALED --SEAL_EXPIRED----&gt; CLOSED   (SessionRelocationSealTimeout since install; terminal)
 * </pre>
 */
public enum BarrierStage {
  /** Bound and unsealed: session messages go straight to the current route. */
  OPEN,
  /** Sealed by one relocation: session messages are held in arrival order (spec 001 section 4.1). */
  SEALED,
  /** Terminal: the physical session was closed at the seal timeout and the binding cleaned (section 9). */
  CLOSED;

  /** What moved the barrier. */
  public enum Trigger {
    /** A command 42 for this binding was installed. */
    SEAL_INSTALLED,
    /** The matching command 44 commit was applied. */
    COMMIT_APPLIED,
    /** The matching command 44 abort was applied. */
    ABORT_APPLIED,
    /** The seal timeout passed. */
    SEAL_EXPIRED
  }

  private static final Map<BarrierStage, Map<Trigger, BarrierStage>> TABLE = build();

  private static Map<BarrierStage, Map<Trigger, BarrierStage>> build() {
    final Map<BarrierStage, Map<Trigger, BarrierStage>> t = new EnumMap<>(BarrierStage.class);
    for (final BarrierStage s : values()) {
      t.put(s, new EnumMap<>(Trigger.class));
    }
    t.get(OPEN).put(Trigger.SEAL_INSTALLED, SEALED);
    t.get(SEALED).put(Trigger.COMMIT_APPLIED, OPEN);
    t.get(SEALED).put(Trigger.ABORT_APPLIED, OPEN);
    t.get(SEALED).put(Trigger.SEAL_EXPIRED, CLOSED);
    final Map<BarrierStage, Map<Trigger, BarrierStage>> frozen = new EnumMap<>(BarrierStage.class);
    t.forEach((k, v) -> frozen.put(k, Collections.unmodifiableMap(v)));
    return Collections.unmodifiableMap(frozen);
  }

  /**
   * The stage a trigger leads to from this one.
   *
   * @param trigger the trigger.
   * @return the next stage, or empty when the table has no such edge.
   */
  public Optional<BarrierStage> after(final Trigger trigger) {
    return Optional.ofNullable(TABLE.get(this).get(trigger));
  }
}
