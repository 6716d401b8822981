package dev.spotkit.relocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Walks every stage x trigger pair against the table spec 001 section 11 describes. */
class TransitionsTest {
  private static final Map<Stage, Map<Trigger, Stage>> EXPECTED = new EnumMap<>(Stage.class);

  static {
    for (final Stage s : Stage.values()) {
      EXPECTED.put(s, new EnumMap<>(Trigger.class));
    }
    EXPECTED.get(Stage.SOURCE_RUNNING).put(Trigger.SEAL, Stage.SOURCE_PAUSED);
    EXPECTED.get(Stage.SOURCE_PAUSED).put(Trigger.EXPLICIT_FAILURE, Stage.SOURCE_RUNNING);
    EXPECTED.get(Stage.SOURCE_PAUSED).put(Trigger.RELAY_READY_ACCEPTED, Stage.RELAY_READY);
    EXPECTED.get(Stage.RELAY_READY).put(Trigger.CUTOVER_SUBMITTED, Stage.FOLLOW_ONLY);
    EXPECTED.get(Stage.TARGET_RESTORING).put(Trigger.RESTORED, Stage.RELAY_READY);
    EXPECTED.get(Stage.TARGET_RESTORING).put(Trigger.STAGING_REMOVED, Stage.TARGET_REMOVED);
    EXPECTED.get(Stage.RELAY_READY).put(Trigger.CUTOVER, Stage.CUTOVER_RECEIVED);
    EXPECTED.get(Stage.RELAY_READY).put(Trigger.CUTOVER_WAIT_ELAPSED, Stage.CUTOVER_FALLBACK);
    EXPECTED.get(Stage.RELAY_READY).put(Trigger.STAGING_REMOVED, Stage.TARGET_REMOVED);
    for (final Stage s : List.of(Stage.CUTOVER_RECEIVED, Stage.CUTOVER_FALLBACK, Stage.STORE_RETRY)) {
      EXPECTED.get(s).put(Trigger.STORE_UNSURE, Stage.STORE_RETRY);
      EXPECTED.get(s).put(Trigger.CAS_APPLIED, Stage.OWNER_COMMITTED);
      EXPECTED.get(s).put(Trigger.STAGING_REMOVED, Stage.TARGET_REMOVED);
    }
    EXPECTED.get(Stage.OWNER_COMMITTED).put(Trigger.BACKLOG_OPENED, Stage.TARGET_OPEN);
  }

  @Test
  void everyStageTriggerPairMatchesTheTable() {
    int edges = 0;
    for (final Stage stage : Stage.values()) {
      for (final Trigger trigger : Trigger.values()) {
        final Stage expected = EXPECTED.get(stage).get(trigger);
        if (expected == null) {
          assertThatThrownBy(() -> Transitions.next(stage, trigger)).isInstanceOf(IllegalTransition.class)
              .satisfies(e -> {
                assertThat(((IllegalTransition) e).stage()).isEqualTo(stage);
                assertThat(((IllegalTransition) e).trigger()).isEqualTo(trigger);
              });
          assertThat(Transitions.lookup(stage, trigger)).isEmpty();
        } else {
          assertThat(Transitions.next(stage, trigger)).isEqualTo(expected);
          edges++;
        }
      }
    }
    assertThat(edges).isEqualTo(19);
  }

  @Test
  void theOnlyBackwardEdgeIsSourcePausedToSourceRunningOnExplicitFailure() {
    final List<String> backward = new ArrayList<>();
    for (final Stage stage : Stage.values()) {
      for (final Trigger trigger : Transitions.allowed(stage)) {
        final Stage next = Transitions.next(stage, trigger);
        if (next.ordinal() < stage.ordinal()) {
          backward.add(stage.specName() + " -" + trigger + "-> " + next.specName());
        }
      }
    }
    assertThat(backward).containsExactly("SourcePaused -EXPLICIT_FAILURE-> SourceRunning");
  }

  @Test
  void terminalStagesAcceptNothingAndTheErrorNamesStageTriggerAndAllowedSet() {
    assertThat(Transitions.allowed(Stage.TARGET_REMOVED)).isEmpty();
    assertThat(Transitions.allowed(Stage.TARGET_OPEN)).isEmpty();
    assertThat(Transitions.allowed(Stage.FOLLOW_ONLY)).isEmpty();
    assertThatThrownBy(() -> Transitions.next(Stage.FOLLOW_ONLY, Trigger.EXPLICIT_FAILURE))
        .hasMessage("no transition for trigger EXPLICIT_FAILURE in stage FollowOnly; allowed triggers: [] "
            + "(spec 001 section 11)");
  }

  @Test
  void stageNamesAreTheSpecNames() {
    assertThat(List.of(Stage.values()).stream().map(Stage::specName)).containsExactly("SourceRunning",
        "SourcePaused", "TargetRestoring", "RelayReady", "CutoverReceived", "CutoverFallback", "StoreRetry",
        "OwnerCommitted", "TargetRemoved", "TargetOpen", "FollowOnly");
  }

  @Test
  void anIllegalEventLeavesTheUnitUnchanged() {
    final SourceUnit unit = new SourceUnit(Fixtures.ID, Fixtures.OBJECT, 1, Fixtures.SETTINGS,
        InFlightBudget.peerDefault(), false, 0);
    unit.handle(new SourceEvent.StartRequested());
    assertThat(unit.stage()).isEqualTo(Stage.SOURCE_PAUSED);
    assertThatThrownBy(() -> unit.handle(new SourceEvent.StartRequested())).isInstanceOf(IllegalTransition.class);
    assertThat(unit.stage()).isEqualTo(Stage.SOURCE_PAUSED);
  }
}
