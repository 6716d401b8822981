package dev.spotkit.relocation;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The one transition table of a relocation unit (spec 001 section 11): {@code stage x trigger -> next stage}, as
 * data. Every stage change of {@link SourceUnit} and {@link TargetUnit} goes through {@link #next}. The only
 * backward edge is {@code SOURCE_PAUSED --EXPLICIT_FAILURE--> SOURCE_RUNNING}.
 *
 * <pre>
 * SourceRunning   --SEAL-------------------&gt; SourcePaused
 * SourcePaused    --EXPLICIT_FAILURE-------&gt; SourceRunning      (the single reversal)
 * SourcePaused    --RELAY_READY_ACCEPTED---&gt; RelayReady
 * RelayReady      --CUTOVER_SUBMITTED------&gt; FollowOnly          (source)
 * TargetRestoring --RESTORED---------------&gt; RelayReady
 * TargetRestoring --STAGING_REMOVED--------&gt; TargetRemoved
 * RelayReady      --CUTOVER----------------&gt; CutoverReceived
 * RelayReady      --CUTOVER_WAIT_ELAPSED---&gt; CutoverFallback
 * RelayReady      --STAGING_REMOVED--------&gt; TargetRemoved
 * CutoverReceived, CutoverFallback, StoreRetry --STORE_UNSURE--&gt; StoreRetry
 * CutoverReceived, CutoverFallback, StoreRetry --CAS_APPLIED---&gt; OwnerCommitted
 * CutoverReceived, CutoverFallback, StoreRetry --STAGING_REMOVED--&gt; TargetRemoved
 * OwnerCommitted  --BACKLOG_OPENED---------&gt; TargetOpen
 * </pre>
 */
public final class Transitions {
  private static final Map<Stage, Map<Trigger, Stage>> TABLE = build();

  private Transitions() {
  }

  private static Map<Stage, Map<Trigger, Stage>> build() {
    final Map<Stage, Map<Trigger, Stage>> t = new EnumMap<>(Stage.class);
    for (final Stage s : Stage.values()) {
      t.put(s, new EnumMap<>(Trigger.class));
    }
    t.get(Stage.SOURCE_RUNNING).put(Trigger.SEAL, Stage.SOURCE_PAUSED);
    t.get(Stage.SOURCE_PAUSED).put(Trigger.EXPLICIT_FAILURE, Stage.SOURCE_RUNNING);
    t.get(Stage.SOURCE_PAUSED).put(Trigger.RELAY_READY_ACCEPTED, Stage.RELAY_READY);
    t.get(Stage.RELAY_READY).put(Trigger.CUTOVER_SUBMITTED, Stage.FOLLOW_ONLY);
    t.get(Stage.TARGET_RESTORING).put(Trigger.RESTORED, Stage.RELAY_READY);
    t.get(Stage.TARGET_RESTORING).put(Trigger.STAGING_REMOVED, Stage.TARGET_REMOVED);
    t.get(Stage.RELAY_READY).put(Trigger.CUTOVER, Stage.CUTOVER_RECEIVED);
    t.get(Stage.RELAY_READY).put(Trigger.CUTOVER_WAIT_ELAPSED, Stage.CUTOVER_FALLBACK);
    t.get(Stage.RELAY_READY).put(Trigger.STAGING_REMOVED, Stage.TARGET_REMOVED);
    for (final Stage s : EnumSet.of(Stage.CUTOVER_RECEIVED, Stage.CUTOVER_FALLBACK, Stage.STORE_RETRY)) {
      t.get(s).put(Trigger.STORE_UNSURE, Stage.STORE_RETRY);
      t.get(s).put(Trigger.CAS_APPLIED, Stage.OWNER_COMMITTED);
      t.get(s).put(Trigger.STAGING_REMOVED, Stage.TARGET_REMOVED);
    }
    t.get(Stage.OWNER_COMMITTED).put(Trigger.BACKLOG_OPENED, Stage.TARGET_OPEN);
    final Map<Stage, Map<Trigger, Stage>> frozen = new EnumMap<>(Stage.class);
    t.forEach((k, v) -> frozen.put(k, Collections.unmodifiableMap(v)));
    return Collections.unmodifiableMap(frozen);
  }

  /**
   * The next stage for a trigger.
   *
   * @param stage the current stage.
   * @param trigger the trigger.
   * @return the next stage.
   * @throws IllegalTransition when the table has no such edge; nothing has changed.
   */
  public static Stage next(final Stage stage, final Trigger trigger) {
    final Stage next = TABLE.get(stage).get(trigger);
    if (next == null) {
      throw new IllegalTransition(stage, trigger, allowed(stage));
    }
    return next;
  }

  /**
   * The next stage for a trigger, without throwing.
   *
   * @param stage the current stage.
   * @param trigger the trigger.
   * @return the next stage, or empty when the table has no such edge.
   */
  public static Optional<Stage> lookup(final Stage stage, final Trigger trigger) {
    return Optional.ofNullable(TABLE.get(stage).get(trigger));
  }

  /**
   * The triggers a stage accepts.
   *
   * @param stage the stage.
   * @return the triggers with an edge from {@code stage}, in enum order (empty for terminal stages).
   */
  public static Set<Trigger> allowed(final Stage stage) {
    final Set<Trigger> keys = TABLE.get(stage).keySet();
    return keys.isEmpty() ? EnumSet.noneOf(Trigger.class) : EnumSet.copyOf(keys);
  }
}
