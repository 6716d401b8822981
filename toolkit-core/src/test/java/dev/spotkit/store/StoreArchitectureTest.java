package dev.spotkit.store;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** DESIGN.md: the store SPI imports nothing else of Spotkit (spec 002 section 2.1). */
class StoreArchitectureTest {

  private static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.spotkit");

  @Test
  void storePackageDependsOnNothingElseOfSpotkit() {
    noClasses().that().resideInAPackage("dev.spotkit.store..")
        .should().dependOnClassesThat().resideInAnyPackage("dev.spotkit.core..", "dev.spotkit.mailbox..",
            "dev.spotkit.relocation..", "dev.spotkit.redis..")
        .check(MAIN);
  }

  @Test
  void publicApiDoesNotExposeNettyOrAgrona() {
    noClasses().that().resideInAPackage("dev.spotkit.core").and().arePublic()
        .should().dependOnClassesThat().resideInAnyPackage("org.agrona..", "io.netty..")
        .check(MAIN);
  }
}
