package dev.spotkit.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Examples are what users copy, so they use only the public API (STYLE.md rule 10): nothing from an
 * {@code internal} package of the toolkit.
 */
class PublicApiOnlyTest {

  @Test
  void examplesUseOnlyThePublicApi() {
    final JavaClasses examples = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.spotkit.examples");
    noClasses().that().resideInAPackage("dev.spotkit.examples..")
        .should().dependOnClassesThat().resideInAPackage("dev.spotkit..internal..")
        .because("examples show users the public API; internal packages may change without notice")
        .check(examples);
  }
}
