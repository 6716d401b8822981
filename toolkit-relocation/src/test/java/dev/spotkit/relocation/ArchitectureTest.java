package dev.spotkit.relocation;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** DESIGN.md: toolkit-relocation knows nothing of toolkit-core, Netty or Redis, and starts no threads. */
class ArchitectureTest {
  private final JavaClasses classes = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.spotkit.relocation");

  @Test
  void relocationImportsNoCoreNettyOrRedis() {
    noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.spotkit.core..", "dev.spotkit.store..",
        "dev.spotkit.redis..", "io.netty..", "io.lettuce..").allowEmptyShould(true).check(classes);
  }

  @Test
  void relocationHasNoThreadsOrClocksOfItsOwn() {
    noClasses().should().dependOnClassesThat().haveFullyQualifiedName("java.lang.Thread")
        .orShould().callMethod(System.class, "nanoTime")
        .orShould().callMethod(System.class, "currentTimeMillis")
        .orShould().dependOnClassesThat().resideInAnyPackage("java.util.concurrent..")
        .orShould().dependOnClassesThat().haveFullyQualifiedName("java.time.Clock")
        .orShould().dependOnClassesThat().haveFullyQualifiedName("java.time.InstantSource")
        .orShould().callMethod(java.time.Instant.class, "now")
        .allowEmptyShould(true).check(classes);
  }
}
