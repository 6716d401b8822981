package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.ActorFactory;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.MeshName;
import dev.spotkit.core.ObjectRole;
import dev.spotkit.core.SpotFactory;
import dev.spotkit.core.SpotRelocationAdapter;
import dev.spotkit.core.session.FrameCodec;
import dev.spotkit.core.location.LeaseSettings;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.RelocationStore;
import java.time.Duration;
import java.util.Map;

/**
 * Validated node settings, built by {@code MeshNode.Builder}.
 *
 * @param meshName the mesh.
 * @param role object role.
 * @param store the Location Store (null only for role NONE).
 * @param entry the Entry Spot registration (null unless SERVER).
 * @param actorTypes actor registrations by stable type.
 * @param spotTypes User and Instance Spot registrations by stable type.
 * @param sessions the session listener, or null.
 * @param workers dispatcher core workers.
 * @param requestTimeout default request timeout.
 * @param closeTimeout bound of node close and of OnClosing deadlines.
 * @param applicationJobLimit the Application Job Queue limit: handler turns running at once (the dispatcher's
 *     live permits).
 * @param mesh the mesh settings, or null for a node without peers.
 * @param lease owner lease settings (checked, LOC-03).
 * @param relocationStore the Relocation Store (Instance Spot cold activation), or null.
 * @param closeStores true when the node closes both stores once at the end of its close
 *     ({@code MeshNode.Builder#closeStoresOnClose()}).
 * @param metrics the node's meters ({@code NodeMetrics.OFF} without a registry); the stores above are already
 *     wrapped in their timed decorators when metrics are on.
 * @param listeners event listeners registered on the builder, added before the node starts.
 * @param recreateAfterOwnerLoss true (the default) when GetOrCreate sweeps the row of an object whose owner run is
 *     gone for good and creates a new incarnation ({@code MeshNode.Builder#recreateAfterOwnerLoss(boolean)}).
 * @param deadOwnerSweep the period of the background sweep of dead owners' rows, 1 s..1 h
 *     ({@code MeshNode.Builder#deadOwnerSweep(Duration)}); unused while {@code recreateAfterOwnerLoss} is false.
 */
public record NodeConfig(MeshName meshName, ObjectRole role, LocationStore store, SpotType entry,
    Map<String, ActorType> actorTypes, Map<String, SpotType> spotTypes, SessionSpec sessions, int workers,
    Duration requestTimeout, Duration closeTimeout, int applicationJobLimit, MeshSpec mesh, LeaseSettings lease,
    RelocationStore relocationStore, boolean closeStores,
    dev.spotkit.core.internal.observe.NodeMetrics metrics,
    java.util.List<dev.spotkit.core.NodeEventListener> listeners, boolean recreateAfterOwnerLoss,
    Duration deadOwnerSweep) {

  /** Relocation policy of a factory (spec 000 section 6). */
  public enum Policy {
    /** DisableRelocation. */
    DISABLE,
    /** RecreateOnRelocation. */
    RECREATE,
    /** PreserveStateWith(adapter). */
    PRESERVE
  }

  /** Spot kinds. */
  public enum SpotKind {
    /** The node's Entry Spot. */
    ENTRY,
    /** A User Spot. */
    USER,
    /** An Instance Spot. */
    INSTANCE
  }

  /**
   * An actor registration.
   *
   * @param stableType the stable type.
   * @param factory builds instances.
   * @param policy relocation policy.
   * @param adapter the adapter for PRESERVE, else null.
   * @param mailboxCapacity 0 = unbounded.
   */
  public record ActorType(String stableType, ActorFactory<?> factory, Policy policy,
      ActorRelocationAdapter<?> adapter, int mailboxCapacity) {
  }

  /**
   * A spot registration.
   *
   * @param stableType the stable type ("entry" for the Entry Spot).
   * @param kind the kind.
   * @param factory builds instances.
   * @param perActor true for a PerActor User Spot.
   * @param policy relocation policy (null for the Entry Spot, which never moves).
   * @param adapter the adapter for PRESERVE, else null.
   * @param applicationSignaled true for ApplicationSignaled relocation coordination (spec 003 section 5.1).
   * @param idleTimeout an Instance Spot's InstanceSpotIdleTimeout (spec 003 section 6.2); zero = no idle cleanup
   *     (every other kind: zero).
   */
  public record SpotType(String stableType, SpotKind kind, SpotFactory<?, ?> factory, boolean perActor,
      Policy policy, SpotRelocationAdapter<?> adapter, boolean applicationSignaled, java.time.Duration idleTimeout) {
    /** A type with FrameworkManaged relocation coordination and no idle cleanup. */
    public SpotType(final String stableType, final SpotKind kind, final SpotFactory<?, ?> factory,
        final boolean perActor, final Policy policy, final SpotRelocationAdapter<?> adapter) {
      this(stableType, kind, factory, perActor, policy, adapter, false);
    }

    /** A type with no idle cleanup. */
    public SpotType(final String stableType, final SpotKind kind, final SpotFactory<?, ?> factory,
        final boolean perActor, final Policy policy, final SpotRelocationAdapter<?> adapter,
        final boolean applicationSignaled) {
      this(stableType, kind, factory, perActor, policy, adapter, applicationSignaled, java.time.Duration.ZERO);
    }
  }

  /**
   * The mesh settings (see {@code MeshOptions}).
   *
   * @param host listen host.
   * @param port listen port, 0 = free.
   * @param secret the cluster secret (at least 16 bytes).
   * @param maxFrameBytes frame limit.
   * @param placementWeight 0..10000.
   * @param objectLimit 0 = none.
   * @param maxPendingOutboundBytes the per-peer outbound bound.
   * @param sendTimeout how long a one-way send may wait for room.
   * @param adminDrainPoll how often the node reads its operator drain request key, or null: it reads none
   *     ({@code MeshOptions.acceptAdminDrains}).
   * @param routeCacheMaxAge RouteCacheMaxAge, 100 ms..25 s ({@code MeshOptions.routeCacheMaxAge}).
   */
  public record MeshSpec(String host, int port, byte[] secret, int maxFrameBytes, int placementWeight,
      int objectLimit, long maxPendingOutboundBytes, java.time.Duration sendTimeout,
      java.time.Duration adminDrainPoll, java.time.Duration routeCacheMaxAge) {
  }

  /**
   * The session listener.
   *
   * @param host bind host.
   * @param port bind port, 0 = free.
   * @param codec frame codec.
   * @param actorType stable type of the actor bound to each connection.
   * @param maxOutboundBytes per-session outbound budget.
   * @param inboundLowWaterFrames reading resumes at this many unhandled frames.
   * @param inboundHighWaterFrames reading stops at this many unhandled frames.
   * @param halfCloseDrain bound of a half-closed session's drain.
   * @param halfCloseQuiet quiet time that ends a half-closed session's drain earlier.
   * @param alsoHost bind address of the second listener (same binding and limits), or null without one.
   * @param alsoPort bind port of the second listener, 0 = free.
   * @param alsoCodec frame codec of the second listener, or null without one.
   * @param relocationSealTimeout SessionRelocationSealTimeout, 100 ms..5 min.
   */
  public record SessionSpec(String host, int port, FrameCodec codec, String actorType, int maxOutboundBytes,
      int inboundLowWaterFrames, int inboundHighWaterFrames, Duration halfCloseDrain,
      Duration halfCloseQuiet, String alsoHost, int alsoPort, FrameCodec alsoCodec, Duration relocationSealTimeout) {
  }
}
