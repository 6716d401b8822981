package dev.spotkit.core.arch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.spotkit.core.ActorId;
import dev.spotkit.core.ActorOptions;
import dev.spotkit.core.InstanceSpotOptions;
import dev.spotkit.core.MeshName;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.MeshOptions;
import dev.spotkit.core.ObjectServerBuilder;
import dev.spotkit.core.SessionOptions;
import dev.spotkit.core.SpotId;
import dev.spotkit.core.UserSpotOptions;
import dev.spotkit.core.internal.runtime.Listen;
import dev.spotkit.core.session.SessionServer;
import dev.spotkit.core.session.SessionServerConfig;
import org.junit.jupiter.api.Test;

/**
 * The shape of toolkit-core (DESIGN.md "Modules and dependency direction"; module-info.java exports the API
 * packages {@code dev.spotkit.core}, {@code dev.spotkit.core.session} and {@code dev.spotkit.store} only).
 *
 * <h2>API versus implementation</h2>
 * A public type of an API package does not depend on an implementation package (internal, wire, mesh,
 * location, toolkit-relocation, toolkit-mailbox). The package-private glue of the API packages
 * ({@code ActorContextImpl}, {@code CoreFacades}...) may: it is where the API meets the runtime. The known
 * exceptions, each unavoidable today because the public type is the entry point that builds or feeds the runtime
 * (only in method bodies and private fields; javac's {@code -Xlint:exports} over module-info proves no API
 * signature names a type of an unexported package):
 * <ul>
 *   <li>{@link MeshNode}: owns its {@code NodeRuntime} and reads the location and mesh configuration;</li>
 *   <li>{@link ObjectServerBuilder}, {@link ActorOptions}, {@link InstanceSpotOptions}, {@link UserSpotOptions},
 *       {@link MeshOptions}, {@link SessionOptions}: translate the fluent options into {@code NodeConfig};</li>
 *   <li>{@link ActorId}, {@link SpotId}, {@link MeshName}: validate with {@code Ids}, the one id rule set;</li>
 *   <li>{@link SessionServer}, {@link SessionServerConfig}: bind their listener with {@code Listen}.</li>
 * </ul>
 *
 * <h2>Tools below the runtime</h2>
 * {@code wire}, {@code mesh} and {@code location} do not depend on {@code internal}; known exception:
 * {@code internal.Listen}, the listener checks the mesh shares with the session server.
 */
class LayeringTest {

  private static final JavaClasses MAIN = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("dev.spotkit");

  private static final String[] API = {"dev.spotkit.core", "dev.spotkit.core.session", "dev.spotkit.store"};

  private static final String[] IMPLEMENTATION = {"dev.spotkit.core.internal..", "dev.spotkit.core.wire..",
      "dev.spotkit.core.mesh..", "dev.spotkit.core.location..", "dev.spotkit.relocation..",
      "dev.spotkit.mailbox.."};

  @Test
  void publicApiTypesDependOnImplementationOnlyWhereListed() {
    noClasses().that().resideInAnyPackage(API).and().arePublic()
        .and(not(belongToAnyOf(MeshNode.class, ObjectServerBuilder.class, ActorOptions.class,
            InstanceSpotOptions.class, UserSpotOptions.class, MeshOptions.class, SessionOptions.class,
            ActorId.class, SpotId.class, MeshName.class, SessionServer.class, SessionServerConfig.class)))
        .should().dependOnClassesThat().resideInAnyPackage(IMPLEMENTATION)
        .because("the API packages are all that module dev.spotkit.core exports")
        .check(MAIN);
  }

  @Test
  void implementationPackagesOtherThanInternalDoNotReachIntoTheRuntime() {
    noClasses().that().resideInAnyPackage("dev.spotkit.core.wire..", "dev.spotkit.core.mesh..",
            "dev.spotkit.core.location..")
        .should().dependOnClassesThat(resideInAPackage("dev.spotkit.core.internal..")
            .and(not(belongToAnyOf(Listen.class))))
        .because("wire, mesh and location are the runtime's tools, below it; known exception: Listen (host, port "
            + "and event-loop checks shared by the mesh and session listeners), which belongs beside them")
        .check(MAIN);
  }
}
