package dev.spotkit.relocation.session;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.spotkit.relocation.session.BarrierStage.Trigger;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BarrierStageTest {

  @Test
  void everyStageAndTriggerPairMatchesTheTable() {
    final Map<BarrierStage, Map<Trigger, BarrierStage>> expected = Map.of(
        BarrierStage.OPEN, Map.of(Trigger.SEAL_INSTALLED, BarrierStage.SEALED),
        BarrierStage.SEALED, Map.of(Trigger.COMMIT_APPLIED, BarrierStage.OPEN, Trigger.ABORT_APPLIED,
            BarrierStage.OPEN, Trigger.SEAL_EXPIRED, BarrierStage.CLOSED),
        BarrierStage.CLOSED, Map.of());
    for (BarrierStage s : BarrierStage.values()) {
      for (Trigger t : Trigger.values()) {
        assertThat(s.after(t)).as("%s --%s-->", s, t).isEqualTo(Optional.ofNullable(expected.get(s).get(t)));
      }
    }
  }

  @Test
  void theSessionOwnerSideUsesNothingButTheRelocationTypesAndTheJdkCore() {
    // Spec 001 section 7: the Session owner never reads or writes the Location Store, and does no I/O.
    classes().that().resideInAPackage("dev.spotkit.relocation.session")
        .should().onlyDependOnClassesThat().resideInAnyPackage("dev.spotkit.relocation", "dev.spotkit.relocation.wire",
            "dev.spotkit.relocation.session", "java.lang..", "java.util")
        .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.spotkit.relocation.session"));
  }
}
