package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.mesh.MeshConfig;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The node-to-node mesh: {@code mesh(m -> m.listen("127.0.0.1", 0).clusterSecret(secret))}. With it, a node
 * publishes its MeshNode descriptor (endpoint, role, Entry Spot, registered types, placement weight, capacity)
 * in the Location Store, reads its peers' descriptors, connects to them over authenticated TCP, places new
 * actors and User Spots on any Serving node of the mesh, and routes messages to objects owned elsewhere (spec
 * 002 sections 4 and 7). Every node of one mesh shares the Location Store and the cluster secret. Without it, a
 * node serves only the objects it owns. Not thread-safe; only inside the callback.
 */
public final class MeshOptions {
  String host = MeshConfig.DEFAULT_HOST;
  int port;
  byte[] secret;
  int maxFrameBytes = MeshConfig.DEFAULT_MAX_FRAME_LENGTH;
  int placementWeight = DEFAULT_PLACEMENT_WEIGHT;
  int objectLimit;
  long maxPendingOutboundBytes = MeshConfig.DEFAULT_MAX_PENDING_OUTBOUND_BYTES;
  java.time.Duration sendTimeout = DEFAULT_SEND_TIMEOUT;
  java.time.Duration adminDrainPoll;
  java.time.Duration routeCacheMaxAge = DEFAULT_ROUTE_CACHE_MAX_AGE;

  /** RouteCacheMaxAge: 15 s (FACTS.md "Message Follow and route cache"). */
  public static final java.time.Duration DEFAULT_ROUTE_CACHE_MAX_AGE = java.time.Duration.ofSeconds(15);

  /** Default poll interval of {@link #acceptAdminDrains()}: 1 s. */
  public static final java.time.Duration DEFAULT_ADMIN_DRAIN_POLL = java.time.Duration.ofSeconds(1);

  /** Default bound on how long a one-way send to another node may be slowed by a peer that does not read. */
  public static final java.time.Duration DEFAULT_SEND_TIMEOUT = java.time.Duration.ofSeconds(5);

  /** Default placement weight (spec 002 section 4). */
  public static final int DEFAULT_PLACEMENT_WEIGHT = 100;
  /** Largest placement weight (spec 002 section 4). */
  public static final int MAX_PLACEMENT_WEIGHT = 10_000;

  MeshOptions() {
  }

  /**
   * The mesh listener's address, advertised as this node's endpoint.
   *
   * @param listenHost a literal address or host name, default "127.0.0.1".
   * @param listenPort 0..65535; 0 picks a free port.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when the port is out of range or the host is empty.
   */
  public MeshOptions listen(final String listenHost, final int listenPort) {
    if (listenHost == null || listenHost.isBlank()) {
      throw new SpotkitException.InvalidOperation("mesh listen host must not be empty; e.g. \"127.0.0.1\"");
    }
    if (listenPort < 0 || listenPort > 65535) {
      throw new SpotkitException.InvalidOperation("mesh port " + listenPort + " must be 0..65535 (0 = free)");
    }
    this.host = listenHost;
    this.port = listenPort;
    return this;
  }

  /**
   * The shared cluster secret every node of the mesh proves in the handshake (HMAC challenge); required.
   *
   * @param clusterSecret at least {@value MeshConfig#MIN_SECRET_BYTES} bytes; copied.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when shorter.
   */
  public MeshOptions clusterSecret(final byte[] clusterSecret) {
    if (clusterSecret == null || clusterSecret.length < MeshConfig.MIN_SECRET_BYTES) {
      throw new SpotkitException.InvalidOperation("the cluster secret must have at least "
          + MeshConfig.MIN_SECRET_BYTES + " bytes");
    }
    this.secret = Arrays.copyOf(clusterSecret, clusterSecret.length);
    return this;
  }

  /**
   * The shared cluster secret as text.
   *
   * @param clusterSecret at least {@value MeshConfig#MIN_SECRET_BYTES} UTF-8 bytes.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when shorter.
   */
  public MeshOptions clusterSecret(final String clusterSecret) {
    if (clusterSecret == null) {
      throw new SpotkitException.InvalidOperation("the cluster secret must not be null");
    }
    return clusterSecret(clusterSecret.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Largest mesh frame accepted; a longer one closes the connection with a logged reason.
   *
   * @param bytes 1 KiB..1 GiB; default 16 MiB.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when outside that range.
   */
  public MeshOptions maxFrameBytes(final int bytes) {
    if (bytes < 1024 || bytes > (1 << 30)) {
      throw new SpotkitException.InvalidOperation("maxFrameBytes " + bytes + " must be 1024..1073741824");
    }
    this.maxFrameBytes = bytes;
    return this;
  }

  /**
   * Relative share of new objects placed on this node (spec 002 section 4).
   *
   * @param weight 0..{@value #MAX_PLACEMENT_WEIGHT}; default {@value #DEFAULT_PLACEMENT_WEIGHT}; 0 = never
   *     chosen for new objects (objects already here stay).
   * @return these options.
   * @throws SpotkitException.InvalidOperation when outside that range.
   */
  public MeshOptions placementWeight(final int weight) {
    if (weight < 0 || weight > MAX_PLACEMENT_WEIGHT) {
      throw new SpotkitException.InvalidOperation("placementWeight " + weight + " must be 0.."
          + MAX_PLACEMENT_WEIGHT);
    }
    this.placementWeight = weight;
    return this;
  }

  /**
   * The overall Actor/Spot limit of this node (spec 002 section 4): creations placed here beyond it are
   * refused by the reservation and go to another node.
   *
   * @param limit 0 = no limit (default), or 1..2^31-1.
   * @return these options.
   * @throws SpotkitException.NotConfigured when negative (a startup configuration error).
   */
  public MeshOptions objectLimit(final int limit) {
    if (limit < 0) {
      throw new SpotkitException.NotConfigured("objectLimit " + limit + " is negative; use 0 for no limit");
    }
    this.objectLimit = limit;
    return this;
  }

  /**
   * The per-peer outbound bound: bytes of messages sent to one node and not yet written to its socket (queued on
   * the connection's event loop or in its buffer). A send that finds no room waits (its virtual thread parks) until
   * the peer reads, for at most {@link #sendTimeout(java.time.Duration)} (a request: until its own timeout), then
   * fails with {@link SpotkitException.CapacityExceeded}; so a node that stops reading costs its peers at most this
   * much memory each, and traffic resumes as soon as it reads again.
   *
   * @param bytes 64 KiB..2^40; default 32 MiB.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when outside that range.
   */
  public MeshOptions maxPendingOutboundBytes(final long bytes) {
    if (bytes < 65_536 || bytes > (1L << 40)) {
      throw new SpotkitException.InvalidOperation("maxPendingOutboundBytes " + bytes + " must be 65536..2^40");
    }
    this.maxPendingOutboundBytes = bytes;
    return this;
  }

  /**
   * How long a one-way send to another node may wait for room in the outbound bound (and for the connection)
   * before it fails with {@link SpotkitException.CapacityExceeded} (or {@link SpotkitException.Unavailable}).
   *
   * @param timeout positive, at most 1 hour; default 5 s.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when outside that range.
   */
  public MeshOptions sendTimeout(final java.time.Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero() || timeout.compareTo(java.time.Duration
        .ofHours(1)) > 0) {
      throw new SpotkitException.InvalidOperation("sendTimeout " + timeout + " must be positive and at most 1 h");
    }
    this.sendTimeout = timeout;
    return this;
  }

  /**
   * Lets an operator drain this node from outside the mesh ({@code spotkit-admin drain}, issue 15): an object server
   * with this option reads the Spotkit-defined Location Store key {@code admin-drain\0{MeshName}\0{hex(NodeRid)}}
   * every {@code pollInterval} (one store read per interval; off by default). When an admin wrote a drain request
   * there, the node takes it with one conditional write (so it runs once), runs
   * {@link MeshNode#relocate(RelocateOptions)} with the request's targets ({@code drainTo}, or
   * {@code drainAnywhere} when none) and deadline, and writes the result (what moved, what stayed, or why the drain
   * failed) into the same record, kept 10 min for the admin to read. Whoever can write the Location Store can
   * already change every owner, so the request grants no new power; keep the store private to the mesh.
   *
   * @param pollInterval 100 ms..1 min: the longest wait before a request is seen.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when null or outside that range.
   */
  public MeshOptions acceptAdminDrains(final java.time.Duration pollInterval) {
    if (pollInterval == null || pollInterval.compareTo(java.time.Duration.ofMillis(100)) < 0
        || pollInterval.compareTo(java.time.Duration.ofMinutes(1)) > 0) {
      throw new SpotkitException.InvalidOperation("acceptAdminDrains poll interval " + pollInterval + " must be"
          + " 100 ms..1 min");
    }
    this.adminDrainPoll = pollInterval;
    return this;
  }

  /**
   * {@link #acceptAdminDrains(java.time.Duration)} with {@link #DEFAULT_ADMIN_DRAIN_POLL} (1 s).
   *
   * @return these options.
   */
  public MeshOptions acceptAdminDrains() {
    return acceptAdminDrains(DEFAULT_ADMIN_DRAIN_POLL);
  }

  /**
   * RouteCacheMaxAge (FACTS.md "Message Follow and route cache"): how long this node routes messages for an object
   * on another node by the owner it read from the Location Store before it reads the record again. A shorter age
   * finds a moved object by the store sooner instead of through Message Follow, at one store read per object per
   * age. Order is not affected: a sender whose receiver moved onto the sender's node switches to local delivery when
   * a flush marker sent the old way arrives, whatever the age.
   *
   * @param maxAge 100 ms..25 s (at least 5 s below the 30 s Message Follow duration); default 15 s.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when outside that range.
   */
  public MeshOptions routeCacheMaxAge(final java.time.Duration maxAge) {
    if (maxAge == null || maxAge.compareTo(java.time.Duration.ofMillis(100)) < 0
        || maxAge.compareTo(java.time.Duration.ofSeconds(25)) > 0) {
      throw new SpotkitException.InvalidOperation("routeCacheMaxAge " + maxAge + " must be 100 ms..25 s (at least"
          + " 5 s below the 30 s Message Follow duration)");
    }
    this.routeCacheMaxAge = maxAge;
    return this;
  }

  NodeConfig.MeshSpec toSpec() {
    if (secret == null) {
      throw new SpotkitException.NotConfigured("the mesh needs a cluster secret shared by every node; call"
          + " mesh(m -> m.clusterSecret(...))");
    }
    return new NodeConfig.MeshSpec(host, port, secret.clone(), maxFrameBytes, placementWeight, objectLimit,
        maxPendingOutboundBytes, sendTimeout, adminDrainPoll, routeCacheMaxAge);
  }
}
