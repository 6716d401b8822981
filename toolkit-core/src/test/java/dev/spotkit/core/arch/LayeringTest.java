package dev.spotkit.core.arch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
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
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
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
 * <h2>The runtime's layers</h2>
 * {@code dev.spotkit.core.internal} is split by owner; bottom to top: {@code runtime} (cells, turns, timers,
 * messaging), {@code mesh} (RouteMesh), {@code creation}, {@code join}, {@code session}, {@code relocation} (the
 * order with the fewest arrows up, measured). A layer uses only the layers below it. Known exceptions, cycles too
 * large to break without new interfaces (each would need a stage interface owned by the lower layer):
 * <ul>
 *   <li>{@code runtime} reaches every layer above: {@code NodeRuntime} is the composition root holding each
 *       stage's owner, and the cells ({@code Cell}, {@code ActorCell}, {@code SpotCell}, {@code Turn},
 *       {@code Envelope}), {@code Messaging}, {@code Lifecycle}, {@code RemoteLifecycle}, {@code Descriptors},
 *       {@code ReplyErrors} and {@code StoreOps} call those owners through it (joins, sessions, relocation,
 *       creation terminals, the mesh);</li>
 *   <li>{@code mesh.RouteMesh} dispatches incoming frames to {@code Relocations} and {@code SessionBinder};</li>
 *   <li>{@code join.Joins} and {@code join.JoinApprovals} carry out an approved join as a relocation
 *       ({@code Relocations});</li>
 *   <li>{@code session.SessionBinder} and {@code session.BoundSession} follow a move ({@code Relocations},
 *       {@code RelocationSource}).</li>
 * </ul>
 * Every other class of every layer is held to the rule, and a new arrow up from a listed class to a layer not
 * listed for it fails too.
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

  private static final String INTERNAL = "dev.spotkit.core.internal.";

  @Test
  void internalLayersPointDown() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("runtime").definedBy(INTERNAL + "runtime..")
        .layer("mesh").definedBy(INTERNAL + "mesh..")
        .layer("creation").definedBy(INTERNAL + "creation..")
        .layer("join").definedBy(INTERNAL + "join..")
        .layer("session").definedBy(INTERNAL + "session..")
        .layer("relocation").definedBy(INTERNAL + "relocation..")
        .whereLayer("relocation").mayNotBeAccessedByAnyLayer()
        .whereLayer("session").mayOnlyBeAccessedByLayers("relocation")
        .whereLayer("join").mayOnlyBeAccessedByLayers("session", "relocation")
        .whereLayer("creation").mayOnlyBeAccessedByLayers("join", "session", "relocation")
        .whereLayer("mesh").mayOnlyBeAccessedByLayers("creation", "join", "session", "relocation")
        // Known exceptions (class Javadoc): the runtime's hubs reach up ...
        .ignoreDependency(origin("runtime.NodeRuntime", "runtime.Cell", "runtime.ActorCell", "runtime.SpotCell",
            "runtime.Turn", "runtime.Envelope", "runtime.Messaging", "runtime.Lifecycle", "runtime.RemoteLifecycle",
            "runtime.Descriptors", "runtime.ReplyErrors", "runtime.StoreOps"),
            resideInAnyPackage(INTERNAL + "mesh..", INTERNAL + "creation..",
            INTERNAL + "join..", INTERNAL + "session..", INTERNAL + "relocation.."))
        // ... the mesh dispatches frames to their owners ...
        .ignoreDependency(origin("mesh.RouteMesh"), resideInAnyPackage(INTERNAL + "session..",
            INTERNAL + "relocation.."))
        // ... a join is carried out as a relocation, and a bound session follows a move.
        .ignoreDependency(origin("join.Joins", "join.JoinApprovals", "session.SessionBinder",
            "session.BoundSession"),
            resideInAnyPackage(INTERNAL + "relocation.."))
        .check(MAIN);
  }

  /** The named classes of {@code internal} ("layer.SimpleName", some package-private) and their nested classes. */
  private static DescribedPredicate<JavaClass> origin(final String... owners) {
    final Set<String> names = Arrays.stream(owners).map(o -> INTERNAL + o).collect(Collectors.toSet());
    return DescribedPredicate.describe(String.join(", ", owners),
        c -> names.contains(c.getName().split("\\$")[0]));
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
