package dev.spotkit.core.internal.mesh;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.relocation.Relocations;
import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.ReplyErrors;
import dev.spotkit.core.internal.runtime.ReplySink;
import dev.spotkit.core.internal.session.WorkMarks;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.MeshNodeDescriptorRecord;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.StoreCalls;
import dev.spotkit.core.mesh.CloseReason;
import dev.spotkit.core.mesh.MeshConfig;
import dev.spotkit.core.mesh.MeshListener;
import dev.spotkit.core.mesh.MeshTransport;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.ApplicationMessage;
import dev.spotkit.core.wire.ApplicationMessageCodec;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.core.wire.Commands;
import dev.spotkit.core.wire.OperationKind;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyCodec;
import dev.spotkit.core.wire.TerminalResult;
import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.store.ReadResult;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The node's part of the RouteMesh: the mesh transport, the route cache, and the application traffic to and
 * from peers (spec 002 sections 4 and 7; FACTS.md "Message Follow and route cache").
 *
 * <p>Outbound: a message for an object that is not Ready here is routed by the owner in its authority record
 * (cached up to {@link #ROUTE_CACHE_MAX_AGE}; Missing, Creating and errors are never cached) to the owner's
 * mesh endpoint from its MeshNode descriptor, over the one ordered connection per peer pair, as command 60.
 * A request's reply comes back as command 20 on the same connection.
 *
 * <p>Inbound: frames arrive on a Netty event loop, in order per connection; an application message is handed
 * to the local mailbox there (never blocking), so messages from one peer keep their order. Errors of a request
 * go back as a command 20 failure whose payload names the typed error.
 */
public final class RouteMesh implements MeshListener {
  /** RouteCacheMaxAge by default (FACTS.md "Message Follow and route cache"); see {@code MeshOptions}. */
  static final Duration ROUTE_CACHE_MAX_AGE = Duration.ofSeconds(15);
  /** The Message Follow duration: 30 s. */
  static final Duration MESSAGE_FOLLOW_DURATION = Duration.ofSeconds(30);
  /**
  /** Most routes kept at once; the cache is only a shortcut to the store, so dropping entries is always safe. */
  static final int MAX_ROUTES = 65_536;
  /** Content type of a failure reply's payload: the error's message as UTF-8 text. */
  public static final String ERROR_CONTENT = "text/plain";
  private static final Duration STORE_TIMEOUT = Duration.ofSeconds(5);

  /** A cached owner: where the Ready object of this generation and kind/type lives. */
  public record Route(NodeRid owner, InetSocketAddress endpoint, long generation, long expiresAtNanos,
      dev.spotkit.core.location.PlacementKind kind, String stableType) {
  }

  /** {@link #readOrHere}'s answer when the authority record names this node (never cached, never sent by). */
  private static final Route HERE = new Route(null, null, 0, 0, null, null);

  private final NodeRuntime rt;
  private final MeshTransport transport;
  private final int maxPayloadBytes;
  private final Duration sendTimeout;
  /** RouteCacheMaxAge of this node, ns. */
  private final long routeMaxAgeNanos;
  /**
   * How long after its expiry a cached route still names the node an object lived on for {@link #routesElsewhere},
   * ns: the Message Follow duration (30 s) minus RouteCacheMaxAge, so within it the old owner still follows what
   * this node sent it (its follow window began after this route was read).
   */
  private final long followBehindNanos;
  private final ConcurrentHashMap<ObjectKey, Route> routes = new ConcurrentHashMap<>();

  private RouteMesh(final NodeRuntime rt, final NodeConfig.MeshSpec spec, final long lifecycleGeneration)
      throws IOException {
    this.rt = rt;
    this.maxPayloadBytes = spec.maxFrameBytes() - 1024;
    this.sendTimeout = spec.sendTimeout();
    this.routeMaxAgeNanos = spec.routeCacheMaxAge().toNanos();
    this.followBehindNanos = MESSAGE_FOLLOW_DURATION.toNanos() - routeMaxAgeNanos;
    final MeshConfig.Builder config = MeshConfig.builder(rt.nodeRid(), lifecycleGeneration, spec.secret())
        .host(spec.host()).port(spec.port()).maxFrameLength(spec.maxFrameBytes())
        .maxPendingOutboundBytes(spec.maxPendingOutboundBytes());
    final dev.spotkit.core.internal.observe.NodeMetrics metrics = rt.metrics();
    if (metrics.countsMeshBytes()) {
      config.trafficCounters(metrics::meshReceived, metrics::meshSent);
    }
    this.transport = MeshTransport.start(config.build(), this);
  }

  /**
   * Peer connections established now (the {@code spotkit.mesh.connections} gauge). Any thread; a snapshot.
   *
   * @return 0 or more.
   */
  public int connectionCount() {
    return transport.connections().size();
  }

  /**
   * Starts the mesh listener.
   *
   * @throws SpotkitException.Unavailable when the port cannot be bound.
   */
  public static RouteMesh start(final NodeRuntime rt, final NodeConfig.MeshSpec spec, final long lifecycleGeneration) {
    try {
      return new RouteMesh(rt, spec, lifecycleGeneration);
    } catch (IOException e) {
      throw new SpotkitException.Unavailable("mesh listener on " + spec.host() + ":" + spec.port()
          + " could not start: " + e.getMessage(), e);
    }
  }

  /** Largest encoded message payload a frame carries, in bytes (the frame limit less 1 KiB of headers). */
  public int maxPayloadBytes() {
    return maxPayloadBytes;
  }

  /** The advertised endpoint, "host:port". */
  public String endpoint() {
    final InetSocketAddress address = transport.localAddress();
    return address.getHostString() + ":" + address.getPort();
  }

  /**
   * Runs {@code then} once this node's mesh event loops read what their sockets held now (see
   * {@link MeshTransport#afterPendingIo}). Any thread; {@code then} runs on an event loop and must not block.
   */
  public void afterPendingIo(final Runnable then) {
    transport.afterPendingIo(then);
  }

  public void close() {
    transport.close();
  }

  // ---------------------------------------------------------------- outbound

  /**
   * Sends or requests to the owner of an object that is not Ready on this node. Blocks for a store read and a
   * connect when the route is not cached (callers run on virtual threads or application threads).
   *
   * @param address the target (not Instance intent).
   * @param envelope the message and, for a request, its reply sink.
   * @throws SpotkitException.NotFound no Ready object with that id anywhere in the mesh.
   * @throws SpotkitException.StaleGeneration the ref's generation is not the live one.
   * @throws SpotkitException.Unavailable the owner cannot be reached or the store does not answer.
   */
  public void forward(final Address address, final Envelope.Msg envelope) {
    if (!forwardUnlessHere(address, envelope)) {
      throw notReadyHere(describe(address));
    }
  }

  /**
   * {@link #forward}, except when the store names this node as the owner: then nothing is sent and the answer is
   * false, so the caller looks for the object here again. The caller read "not Ready here" before this store read; on
   * a busy machine the object may have opened here in between (its aggregate's or its own move arrived and the target's
   * CAS named this node), or begun to move away with its follow in place (spec 001 section 4.3).
   *
   * @param address the target (not Instance intent).
   * @param envelope the message and, for a request, its reply sink.
   * @return true when sent, or held by a route switch; false when the store names this node (nothing sent).
   * @throws SpotkitException as {@link #forward}, except the NotFound for an object recorded on this node.
   */
  public boolean forwardUnlessHere(final Address address, final Envelope.Msg envelope) {
    final ObjectKey key = keyOf(address);
    final long wanted = generationOf(address);
    final Route cached = routes.get(key);
    final Route route;
    if (usable(cached, wanted)) {
      route = cached;
    } else {
      route = readOrTurn(key, cached, wanted, describe(address), address, envelope, null);
      if (route == HERE) {
        return false;
      }
      if (route == null) {
        return true; // held until what this node sent the old way arrived (RouteSwitches.turn)
      }
    }
    final ApplicationMessage.TargetKind kind = kindOf(key);
    final ReplySink sink = envelope.reply();
    final Deadline connectBy = sink != null ? sink.deadline : Deadline.after(sendTimeout);
    PeerConnection connection;
    try {
      connection = connection(route.owner(), route.endpoint(), connectBy);
    } catch (SpotkitException.Unavailable unreachable) {
      // The owner cannot be reached (nothing was sent): drop the route and read the store once more. A cached
      // route may name an owner that died and whose object was created again elsewhere since (crash recovery).
      routes.remove(key, route);
      final Route again = route(key, wanted, describe(address));
      if (again.owner().equals(route.owner())) {
        routes.remove(key, again);
        throw unreachable;
      }
      connection = connection(again.owner(), again.endpoint(), connectBy);
    }
    sendOn(connection, key, kind, key.id(), wanted, null, 0, envelope, connectBy);
    return true;
  }

  /**
   * The NotFound for an object the store records on this node while no Ready cell of it is here.
   *
   * @param what the object's description.
   * @return the error to throw.
   */
  private static SpotkitException.NotFound notReadyHere(final String what) {
    return new SpotkitException.NotFound(what + " is recorded on this node but is not Ready here (closing or"
        + " being replaced)");
  }

  /**
   * The owner this node's route cache names for {@code address}, expired or not, or null.
   *
   * @param address by id or ref.
   * @return the cached owner, or null.
   */
  public NodeRid cachedOwner(final Address address) {
    final Route cached = routes.get(keyOf(address));
    return cached == null ? null : cached.owner();
  }

  /**
   * Whether this node's route cache holds a route for {@code address} naming another node: this node sent to the
   * object while it lived there, and what it sent that way may still be travelling (to that node, which follows it
   * on, Message Follow). A sender on the node the object moved to sends its next message that way, behind the
   * earlier ones, and switches to the local path only when a flush marker sent that way arrives (RouteSwitches in
   * the runtime; spec 000 section 9 gives no order across connections; this keeps one sender's order across the move
   * of its receiver onto the sender's node). A route counts here until the Message Follow duration (30 s) minus
   * RouteCacheMaxAge past its expiry, while the old owner surely still follows; a send by the route after its expiry
   * ({@link #sendBehind}) moves its expiry to that send, so the window covers what that send carries. Never reads
   * the store.
   *
   * <p>Only for the same incarnation ({@code generation}): a route to an earlier incarnation (the object was closed
   * or its owner died, and it was created again here with a higher ObjectGeneration) names a node that no longer
   * has it and follows nothing on; it is dropped here, and the caller delivers locally.
   *
   * @param address by id or ref (not Instance intent).
   * @param generation the ObjectGeneration of the incarnation here, or 0 when not known yet (arriving).
   * @return true when a live cached route to this incarnation names another node.
   */
  public boolean routesElsewhere(final Address address, final long generation) {
    final ObjectKey key = keyOf(address);
    final Route cached = routes.get(key);
    if (cached == null || System.nanoTime() - (cached.expiresAtNanos() + followBehindNanos) >= 0
        || cached.owner().equals(rt.nodeRid())) {
      return false;
    }
    if (generation != 0 && cached.generation() != generation) {
      routes.remove(key, cached); // an earlier incarnation's owner: nothing to queue behind
      return false;
    }
    return true;
  }

  /**
   * Sends {@code envelope} by the route this node's cache holds for {@code address}, expired or not, without
   * reading the store: the way this node sent to the object before, so it travels behind those messages (a route
   * switch; see {@link #routesElsewhere}). One-way or request.
   *
   * @param address by id or ref, or Instance intent (sent with Instance intent, as the cached route was used).
   * @param envelope the message.
   * @return true when sent; false when no route to another node is cached or its node cannot be reached (the route
   *     is dropped then).
   */
  public boolean sendBehind(final Address address, final Envelope.Msg envelope) {
    return sendBehind(address, envelope, true);
  }

  /**
   * As {@link #sendBehind(Address, Envelope.Msg)}; with {@code bounded} false the frame never waits for room in the
   * peer's outbound bound (a route switch's flush marker, sent under a lock other senders wait on; a few bytes).
   *
   * @param address by id or ref, or Instance intent (always bounded).
   * @param envelope the message.
   * @param bounded whether the frame waits for room in the outbound bound, as an application message does.
   * @return true when sent; false when no route to another node is cached or its node cannot be reached (the route
   *     is dropped then).
   */
  public boolean sendBehind(final Address address, final Envelope.Msg envelope, final boolean bounded) {
    final ObjectKey key = keyOf(address);
    final Route cached = routes.get(key);
    if (cached == null || cached.owner().equals(rt.nodeRid())) {
      return false;
    }
    final Address.Instance intent = address instanceof Address.Instance i ? i : null;
    final ApplicationMessage.TargetKind kind = intent != null ? ApplicationMessage.TargetKind.INSTANCE_SPOT
        : kindOf(key);
    try {
      if (bounded || intent != null) {
        send(cached, key, kind, key.id(), generationOf(address), intent != null ? intent.stableType() : null,
            envelope);
      } else {
        final ReplySink sink = envelope.reply();
        sendOn(connection(cached.owner(), cached.endpoint(), sink != null ? sink.deadline
            : Deadline.after(sendTimeout)), key, kind, key.id(), generationOf(address), 0, envelope);
      }
      final long now = System.nanoTime();
      if (now - cached.expiresAtNanos() > 0) {
        // Sent by an expired route: what it carries may be on its way for a while yet, so the window in which
        // routesElsewhere still names that node counts from this send, not from the read (a move whose cutover
        // wait fell back kept this node sending the old way for longer than the window; expiry stays past).
        routes.replace(key, cached, new Route(cached.owner(), cached.endpoint(), cached.generation(), now,
            cached.kind(), cached.stableType()));
      }
      return true;
    } catch (SpotkitException.Unavailable unreachable) {
      routes.remove(key, cached);
      return false;
    }
  }

  /**
   * Whether the cache holds exactly {@code route} for {@code address} (a route switch to another node begins only
   * while the route it turns from is still the cached one).
   *
   * @param address by id or ref (not Instance intent).
   * @param route a route read from the cache before.
   * @return true when it is still cached.
   */
  public boolean caches(final Address address, final Route route) {
    return routes.get(keyOf(address)) == route;
  }

  /**
   * Drops the cached route of {@code address} (the next send reads the store or goes local).
   *
   * @param address by id or ref (not Instance intent).
   */
  public void dropRoute(final Address address) {
    routes.remove(keyOf(address));
  }

  /**
   * Sends a message with Instance intent to another node (which activates the Instance Spot when absent).
   *
   * @param owner the node.
   * @param endpoint its mesh endpoint.
   * @param address the Instance Spot.
   * @param envelope the message.
   */
  public void forwardInstance(final NodeRid owner, final InetSocketAddress endpoint, final Address.Instance address,
      final Envelope.Msg envelope) {
    send(new Route(owner, endpoint, 0, 0, dev.spotkit.core.location.PlacementKind.INSTANCE_SPOT,
        address.stableType()), ObjectKey.spot(address.id()), ApplicationMessage.TargetKind.INSTANCE_SPOT,
        address.id(), 0, address.stableType(), envelope);
  }

  private void send(final Route route, final ObjectKey key, final ApplicationMessage.TargetKind kind,
      final String id, final long generation, final String stableType, final Envelope.Msg envelope) {
    final ReplySink sink = envelope.reply();
    final Deadline connectBy = sink != null ? sink.deadline : Deadline.after(sendTimeout);
    final PeerConnection connection = connection(route.owner(), route.endpoint(), connectBy);
    sendOn(connection, key, kind, id, generation, stableType, 0, envelope, connectBy);
  }

  /**
   * Sends or requests on a given connection (Message Follow uses the relocation's ordered connection). The frame
   * forwards a message this node already accepted (Message Follow, a relocation source's ingress, a Session owner's
   * route): it is counted against the peer's outbound bound but never waits for room, since its callers may hold a
   * cell's or a binding's monitor (spec 001 section 11: no relocation-only capacity gates; the bound applies where
   * the message was first accepted).
   *
   * @param hops Message Follow hops so far (command 60 {@code hops}).
   * @throws SpotkitException.Unavailable when the connection is closed (one-way).
   */
  public void sendOn(final PeerConnection connection, final ObjectKey key, final ApplicationMessage.TargetKind kind,
      final String id, final long generation, final int hops, final Envelope.Msg envelope) {
    sendOn(connection, key, kind, id, generation, null, hops, envelope);
  }

  /**
   * As {@link #sendOn(PeerConnection, ObjectKey, ApplicationMessage.TargetKind, String, long, int, Envelope.Msg)},
   * with Instance intent's stable type (an Instance Spot's Message Follow keeps Instance intent).
   *
   * @param stableType the Instance Spot stable type for kind INSTANCE_SPOT, else null.
   * @throws SpotkitException.Unavailable when the connection is closed (one-way).
   */
  public void sendOn(final PeerConnection connection, final ObjectKey key, final ApplicationMessage.TargetKind kind,
      final String id, final long generation, final String stableType, final int hops,
      final Envelope.Msg envelope) {
    final ReplySink sink = envelope.reply();
    final ApplicationPayload payload = peerPayload(envelope);
    if (sink == null) {
      if (!connection.send(ApplicationMessageCodec.encode(new ApplicationMessage(0, kind, id, generation, stableType,
          0, hops, payload)))) {
        routes.remove(key);
        throw new SpotkitException.Unavailable("the connection to node " + connection.peerRid() + " owning "
            + key.kind().segment() + " '" + id + "' closed; the message was not sent");
      }
      return;
    }
    if (MeshRequests.startable(sink)) { // never waits for room: connection.request without the bound
      MeshRequests.completeWith(rt, connection.request(MeshRequests.frame(kind, id, generation, stableType, hops,
          payload, sink), sink.deadline), sink, key, routes::remove);
    }
  }

  private ApplicationPayload peerPayload(final Envelope.Msg envelope) {
    return WorkMarks.mark(rt.copier().encodeForPeer("message", envelope.payload(), maxPayloadBytes, true),
        envelope.sessionWork());
  }

  private void sendOn(final PeerConnection connection, final ObjectKey key, final ApplicationMessage.TargetKind kind,
      final String id, final long generation, final String stableType, final int hops, final Envelope.Msg envelope,
      final Deadline admitBy) {
    final ReplySink sink = envelope.reply();
    final ApplicationPayload payload = peerPayload(envelope);
    if (sink == null) {
      if (!connection.send(ApplicationMessageCodec.encode(new ApplicationMessage(0, kind, id, generation,
          stableType, 0, hops, payload)), admitBy)) {
        routes.remove(key);
        throw new SpotkitException.Unavailable("the connection to node " + connection.peerRid() + " owning "
            + key.kind().segment() + " '" + id + "' closed; the message was not sent");
      }
      return;
    }
    if (MeshRequests.startable(sink)) {
      MeshRequests.completeWith(rt, connection.request(MeshRequests.frame(kind, id, generation, stableType, hops,
          payload, sink), sink.deadline, true), sink, key, routes::remove);
    }
  }

  /**
   * The owner of a Ready object: from the cache, else from its authority record and the owner's descriptor.
   *
   * @throws SpotkitException.NotFound when Missing, Creating, or owned by this node without a Ready cell.
   * @throws SpotkitException.StaleGeneration when {@code wanted} is non-zero and not the live generation.
   */
  public Route route(final ObjectKey key, final long wanted, final String what) {
    final Route cached = routes.get(key);
    if (usable(cached, wanted)) {
      return cached;
    }
    final Route route = read(key, wanted, what);
    cache(key, route);
    return route;
  }

  /**
   * The owner of an Instance Spot for a send with Instance intent, as {@link #route(ObjectKey, long, String)}; when the
   * route read now turned from this node's expired cached one (the Spot moved from the node this node sent it to),
   * {@code envelope} waits for the route switch as in {@link #forward}, and goes on by id to the owner read now.
   *
   * @param id the Instance Spot id.
   * @param stableType the intent's stable type; only a route to an Instance Spot of that type turns.
   * @param envelope the message.
   * @param what the target's description for errors.
   * @return the route to send by, or null when {@code envelope} was held.
   * @throws SpotkitException.NotFound when no Ready Spot with that id is recorded (the caller places one).
   * @throws SpotkitException.Unavailable when the store does not answer.
   */
  public Route routeInstance(final String id, final String stableType, final Envelope.Msg envelope,
      final String what) {
    final ObjectKey key = ObjectKey.spot(id);
    final Route cached = routes.get(key);
    return usable(cached, 0) ? cached
        : readOrTurn(key, cached, 0, what, new Address.SpotById(id), envelope, stableType);
  }

  /**
   * Reads the owner (the cached route is not usable) and caches it, unless it turned from {@code cached} ({@link
   * #turned}) and a route switch held {@code envelope}: null then. {@code instanceType}: for Instance intent, only a
   * route to an Instance Spot of that stable type turns; null for a send by id or ref.
   */
  private Route readOrTurn(final ObjectKey key, final Route cached, final long wanted, final String what,
      final Address address, final Envelope.Msg envelope, final String instanceType) {
    final Route route = instanceType == null ? readOrHere(key, wanted, what) : read(key, wanted, what);
    if (route == HERE) {
      return HERE; // not cached: the caller looks for it here again
    }
    if ((instanceType == null || route.kind() == dev.spotkit.core.location.PlacementKind.INSTANCE_SPOT
        && route.stableType().equals(instanceType)) && turned(cached, route)
        && rt.messaging().routeSwitches().turn(this, address, cached, route, envelope)) {
      return null;
    }
    cache(key, route);
    return route;
  }

  /** The command 60 target kind of an actor or spot key. */
  private static ApplicationMessage.TargetKind kindOf(final ObjectKey key) {
    return key.kind() == dev.spotkit.core.location.AuthorityKind.ACTOR ? ApplicationMessage.TargetKind.ACTOR
        : ApplicationMessage.TargetKind.SPOT;
  }

  /** Whether {@code cached} is a live route of the wanted generation (0: any). */
  private static boolean usable(final Route cached, final long wanted) {
    return cached != null && System.nanoTime() - cached.expiresAtNanos() < 0
        && (wanted == 0 || wanted == cached.generation());
  }

  /**
   * Whether a route just read from the store names another node than {@code cached}, the expired route of the same
   * incarnation this node sent by before, while that node surely still follows what it was sent (within the
   * Message Follow duration; see {@link #routesElsewhere}): the object moved from there, and what this node sent
   * that way may still be on its way to the new owner.
   */
  private boolean turned(final Route cached, final Route fresh) {
    return cached != null && !cached.owner().equals(fresh.owner()) && cached.generation() == fresh.generation()
        && !cached.owner().equals(rt.nodeRid())
        && System.nanoTime() - (cached.expiresAtNanos() + followBehindNanos) < 0;
  }

  /**
   * Caches {@code route} for {@code address} (a route switch that waited for its flush marker adopts the owner it
   * read; RouteSwitches).
   *
   * @param address by id or ref (not Instance intent).
   * @param route the route read from the store.
   */
  public void adopt(final Address address, final Route route) {
    cache(keyOf(address), route);
  }

  /**
   * Sends by {@code route}, neither reading nor changing the cache (a route switch's held messages, to the owner it
   * read when the switch began). One-way or request.
   *
   * @param route the route.
   * @param address by id or ref (not Instance intent).
   * @param envelope the message.
   * @throws SpotkitException.Unavailable when the owner cannot be reached or its connection closed (one-way).
   */
  public void sendTo(final Route route, final Address address, final Envelope.Msg envelope) {
    final ObjectKey key = keyOf(address);
    send(route, key, kindOf(key), key.id(), generationOf(address),
        null, envelope);
  }

  /** Reads the owner of a Ready object from the store (not cached; see {@link #route}). */
  private Route read(final ObjectKey key, final long wanted, final String what) {
    final Route route = readOrHere(key, wanted, what);
    if (route == HERE) {
      throw notReadyHere(what);
    }
    return route;
  }

  /** {@link #read}, or {@link #HERE} when the record names this node. */
  private Route readOrHere(final ObjectKey key, final long wanted, final String what) {
    final Route cached = routes.get(key);
    if (cached != null && wanted != 0 && wanted != cached.generation()) {
      routes.remove(key, cached); // another generation than cached: the store decides, not the cache
    }
    final LocationRecords.Stored stored = LocationRecords.read(rt.store().store(), key).orElseThrow(() ->
        new SpotkitException.NotFound(what + " not found in mesh " + rt.meshName() + " (no location record;"
            + " messages never create one)"));
    final AuthorityRecord.Allocation allocation = stored.authority().allocation();
    if (allocation.state() != AuthorityRecord.State.ACTIVE) {
      throw new SpotkitException.NotFound(what + " is being created and not Ready yet; retry shortly");
    }
    final long generation = stored.authority().objectGeneration().value();
    checkGeneration(generation, wanted, what);
    final NodeRid owner = new NodeRid(Long.parseUnsignedLong(allocation.routingIdHex(), 16));
    if (owner.equals(rt.nodeRid())) {
      return HERE;
    }
    return new Route(owner, endpointOf(allocation.meshName(), owner, what), generation,
        System.nanoTime() + routeMaxAgeNanos, allocation.objectKind(), allocation.stableType());
  }

  private void cache(final ObjectKey key, final Route route) {
    if (routes.size() >= MAX_ROUTES) { // bounded: drop what expired, and everything if that is not enough
      final long now = System.nanoTime();
      routes.values().removeIf(r -> now - r.expiresAtNanos() >= 0);
      if (routes.size() >= MAX_ROUTES) {
        routes.clear();
      }
    }
    routes.put(key, route);
  }

  /**
   * Where a Ready object lives according to its authority record (Find; spec 000 section 2: only Ready objects
   * are found). Reads the store every time (a Find must not answer from a stale cache).
   *
   * @param key the object.
   * @return the owner, or empty when Missing or not Ready.
   */
  public java.util.Optional<Located> locate(final ObjectKey key) {
    return LocationRecords.read(rt.store().store(), key).filter(stored ->
        stored.authority().allocation().state() == AuthorityRecord.State.ACTIVE).map(stored -> new Located(
            stored.authority().objectGeneration().value(), new dev.spotkit.core.MeshName(
            stored.authority().allocation().meshName()), new NodeRid(Long.parseUnsignedLong(
            stored.authority().allocation().routingIdHex(), 16)), stored.authority().allocation().stableType(),
            stored));
  }

  /** A Ready object's generation and owner, with the row it was read from. */
  public record Located(long generation, dev.spotkit.core.MeshName meshName, NodeRid owner, String stableType,
      LocationRecords.Stored stored) {
  }

  /**
   * The mesh endpoint of a node from its descriptor.
   *
   * @throws SpotkitException.Unavailable when the node published no descriptor (it stopped).
   */
  public InetSocketAddress endpointOf(final String meshName, final NodeRid node, final String what) {
    final ReadResult read = StoreCalls.await(rt.store().store().read(LocationKeys.meshNode(meshName,
        ridBytes(node)).preimage()), STORE_TIMEOUT, "read of the descriptor of node " + node);
    if (!(read instanceof ReadResult.Found found)) {
      throw new SpotkitException.Unavailable(what + " is owned by node " + node + ", which published no"
          + " descriptor (stopped, or its lease lapsed)");
    }
    return parseEndpoint(MeshNodeDescriptorRecord.decode(found.value()).descriptor().endpoint());
  }

  /**
   * Whether a node of this mesh is live: its descriptor is present and its owner lease valid by StoreNow (a
   * stopped node removed its descriptor; a killed one's lease lapsed). Blocks for two store reads.
   *
   * @throws SpotkitException.Unavailable when the store does not answer (not proof either way).
   */
  public boolean live(final NodeRid node) {
    return new dev.spotkit.core.location.NodeDirectory(rt.store().store(), STORE_TIMEOUT)
        .isLive(rt.meshName().value(), node.hex());
  }

  /** Whether a node of this mesh has a published descriptor (it runs: a stopped node removed it). Blocks. */
  public boolean published(final NodeRid node) {
    return StoreCalls.await(rt.store().store().read(LocationKeys.meshNode(rt.meshName().value(), ridBytes(node))
        .preimage()), STORE_TIMEOUT, "read of the descriptor of node " + node) instanceof ReadResult.Found;
  }

  public static InetSocketAddress parseEndpoint(final String endpoint) {
    final int colon = endpoint.lastIndexOf(':');
    if (colon <= 0) {
      throw new SpotkitException.Unavailable("descriptor endpoint '" + endpoint + "' is not host:port");
    }
    return InetSocketAddress.createUnresolved(endpoint.substring(0, colon),
        Integer.parseInt(endpoint.substring(colon + 1)));
  }

  public static byte[] ridBytes(final NodeRid rid) {
    return java.nio.ByteBuffer.allocate(Long.BYTES).putLong(rid.value()).array();
  }

  private static void checkGeneration(final long live, final long wanted, final String what) {
    if (wanted != 0 && wanted != live) {
      throw new SpotkitException.StaleGeneration("ref of " + what + " has generation " + wanted + " but the live"
          + " incarnation has generation " + live + "; refused rather than misrouted");
    }
  }

  /** The open connection to a peer, if any (no I/O). */
  public java.util.Optional<PeerConnection> open(final NodeRid peer) {
    return transport.connection(peer).filter(PeerConnection::isOpen);
  }

  /**
   * The open connection to a node named by its MeshNode descriptor, dialing it when there is none; nothing is
   * sent on it yet, so a failure here means the node never saw a request.
   *
   * @throws SpotkitException.Unavailable when the node has no descriptor, cannot be reached, or its handshake
   *     fails (e.g. another cluster secret) by {@code deadline}.
   */
  public PeerConnection connectionTo(final NodeRid owner, final String meshName, final Deadline deadline,
      final String what) {
    return connection(owner, endpointOf(meshName, owner, what), deadline);
  }

  /** The open connection to a peer, dialing it when there is none. */
  public PeerConnection connection(final NodeRid peer, final InetSocketAddress endpoint, final Deadline deadline) {
    final PeerConnection open = transport.connection(peer).filter(PeerConnection::isOpen).orElse(null);
    if (open != null) {
      return open;
    }
    final InetSocketAddress resolved = endpoint.isUnresolved()
        ? new InetSocketAddress(endpoint.getHostString(), endpoint.getPort()) : endpoint;
    try {
      return transport.connect(resolved, peer).get(Math.max(1, deadline.remaining().toNanos()),
          TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new SpotkitException.Unavailable("node " + peer + " at " + endpoint + " did not accept a mesh"
          + " connection in time");
    } catch (ExecutionException e) {
      throw new SpotkitException.Unavailable("node " + peer + " at " + endpoint + " cannot be reached: "
          + e.getCause().getMessage(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpotkitException.Unavailable("interrupted while connecting to node " + peer);
    }
  }

  /**
   * A framework request to another node, answered by one command 20 reply. Blocks for a descriptor read and a
   * connect when not connected yet.
   *
   * @param owner the node.
   * @param meshName its MeshName (for its descriptor).
   * @param encoder builds the frame around the correlation.
   * @param kind the request's OperationKind (decodes the reply's tail).
   * @param deadline absolute.
   * @param what for errors.
   * @return the OK reply; fails with the typed error the owner answered, DeadlineExceeded, or Unavailable.
   */
  public CompletableFuture<Reply> call(final NodeRid owner, final String meshName,
      final java.util.function.LongFunction<byte[]> encoder, final OperationKind kind, final Deadline deadline,
      final String what) {
    return call(connection(owner, endpointOf(meshName, owner, what), deadline), encoder, kind, deadline, what);
  }

  /**
   * A framework request on an open connection ({@link #connectionTo}), answered by one command 20 reply.
   *
   * @return the OK reply; fails with the typed error the owner answered, DeadlineExceeded, or Unavailable.
   */
  public CompletableFuture<Reply> call(final PeerConnection connection,
      final java.util.function.LongFunction<byte[]> encoder, final OperationKind kind, final Deadline deadline,
      final String what) {
    return connection.request(encoder, deadline).thenApply(frame -> {
      final Reply reply = ReplyCodec.decode(frame, kind);
      if (reply.terminalResult() != TerminalResult.OK) {
        throw ReplyErrors.toException(reply, what);
      }
      return reply;
    });
  }

  /**
   * Sends exactly one command 20 reply for {@code correlation} when {@code result} completes: {@code ok} builds
   * the OK reply; a failure becomes a typed failure reply.
   */
  public static <T> void answer(final PeerConnection to, final long correlation, final CompletableFuture<T> result,
      final java.util.function.Function<T, Reply> ok) {
    result.whenComplete((value, failure) -> {
      Reply reply;
      try {
        reply = failure == null ? ok.apply(value)
            : ReplyErrors.toReply(correlation, Cell.typed(unwrap(failure), "request from " + to.peerRid()));
      } catch (SpotkitException e) {
        reply = ReplyErrors.toReply(correlation, e);
      }
      to.send(ReplyCodec.encode(reply));
    });
  }

  public static Throwable unwrap(final Throwable failure) {
    return failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
  }

  // ---------------------------------------------------------------- inbound

  @Override
  public void onFrame(final PeerConnection from, final byte[] frame) {
    final int command = FrameHead.decode(frame).command();
    switch (command) {
      case Commands.APPLICATION_MESSAGE -> onApplicationMessage(from, frame);
      case Commands.REPLY -> {
        if (!rt.relocations().onReplyRoute(frame)) {
          NodeRuntime.LOG.debug("late reply {} from {} ignored", ReplyCodec.correlation(frame), from.peerRid());
        }
      }
      default -> rt.onMeshFrame(from, command, frame);
    }
  }

  /** Command 52 in its receive buffer, owned from the call on: {@link Relocations#onStateFrame}. Event loop. */
  @Override
  public void onStateFrame(final PeerConnection from, final ByteBuf frame) {
    rt.relocations().onStateFrame(from, frame);
  }

  @Override
  public void onConnectionLost(final PeerConnection connection, final CloseReason reason) {
    routes.values().removeIf(route -> route.owner().equals(connection.peerRid()));
    rt.relocations().onConnectionLost(connection);
  }

  private void onApplicationMessage(final PeerConnection from, final byte[] frame) {
    ApplicationMessage m;
    try {
      m = ApplicationMessageCodec.decode(frame);
    } catch (WireFormatException e) {
      NodeRuntime.LOG.warn("malformed application message from {}: {}", from.peerRid(), e.getMessage());
      from.close();
      return;
    }
    if (m.targetKind() == ApplicationMessage.TargetKind.SPOT
        && Relocations.LEAVE_PACKET.equals(m.payload().packetName())
        && Relocations.LEAVE_CONTENT.equals(m.payload().contentType())) {
      rt.relocations().onLeaveNotice(m.targetId(), new String(m.payload().payload(),
          java.nio.charset.StandardCharsets.UTF_8));
      return;
    }
    final ReplySink sink = m.isRequest() ? inboundSink(from, m) : null;
    final int work = WorkMarks.workOf(m.payload());
    if (work != 0) { // a client frame or disconnect of a bound session whose actor runs here (one-way)
      m = new ApplicationMessage(m.correlation(), m.targetKind(), m.targetId(), m.objectGeneration(),
          m.stableType(), m.deadlineBudgetMs(), m.hops(), WorkMarks.unmark(m.payload()));
    }
    try {
      if (m.targetKind() == ApplicationMessage.TargetKind.ACTOR && !rt.hasReadyActor(m.targetId())
          && rt.relocations().followInbound(m, sink, work)) {
        return;
      }
      deliverInbound(m, sink, work, from.peerRid());
    } catch (RuntimeException e) { // never out of the event loop: one bad message is not the connection's fault
      final SpotkitException typed = Cell.typed(e, "message from node " + from.peerRid());
      if (sink != null) {
        sink.fail(typed);
      } else {
        rt.deadLetters().record(typed.kind().name().toLowerCase(java.util.Locale.ROOT), "one-way message from node "
            + from.peerRid() + " to " + m.targetKind() + " '" + m.targetId() + "' dropped: " + typed.getMessage());
      }
    }
  }

  private void deliverInbound(final ApplicationMessage m, final ReplySink sink, final int sessionWork,
      final NodeRid from) {
    final Object message = rt.copier().decode(m.payload());
    final Address address = switch (m.targetKind()) {
      case ACTOR -> new Address.ActorById(m.targetId());
      case SPOT -> new Address.SpotById(m.targetId());
      case INSTANCE_SPOT -> new Address.Instance(m.targetId(), m.stableType());
    };
    // followed back from the node this node follows the object to: earlier work (not a third node's follow)
    final boolean followedBack = m.hops() > 0 && rt.relocations() != null && (rt.relocations().followsTo(
        (m.targetKind() == ApplicationMessage.TargetKind.ACTOR ? "actor:" : "spot:") + m.targetId(), from)
        || rt.messaging().arrivedFrom(address, from));
    rt.messaging().deliverInbound(address, m.objectGeneration(), new Envelope.Msg(message, sink,
        sessionWork), followedBack, new RouteSwitches.Inbound(m.hops() > 0 ? from : null));
  }

  private ReplySink inboundSink(final PeerConnection from, final ApplicationMessage m) {
    final ReplySink sink = new ReplySink(WireDeadlines.budgetDeadline(m.deadlineBudgetMs()), Object.class,
        "request from node " + from.peerRid() + " to " + m.targetKind() + " '" + m.targetId() + "'");
    final long correlation = m.correlation();
    // encoded in the handler's turn: a reply that cannot be encoded discards the turn's joins (MEM-18)
    sink.encodeWith(value -> rt.copier().encodeForPeer("reply", value, maxPayloadBytes, false));
    rt.attachDeadline(sink.future, sink.deadline, () -> sink.description + " timed out");
    sink.future.whenComplete((value, failure) -> {
      final Reply reply;
      if (failure == null) {
        reply = new Reply(correlation, TerminalResult.OK, dev.spotkit.core.wire.FailureCode.NONE,
            dev.spotkit.core.wire.ReplyTail.Empty.INSTANCE, (ApplicationPayload) sink.encoded());
      } else {
        reply = ReplyErrors.toReply(correlation, Cell.typed(failure, sink.description));
      }
      from.send(ReplyCodec.encode(reply));
    });
    return sink;
  }

  // ---------------------------------------------------------------- helpers

  static ObjectKey keyOf(final Address address) {
    return switch (address) {
      case Address.ActorById byId -> ObjectKey.actor(byId.id());
      case Address.ActorByRef byRef -> ObjectKey.actor(byRef.ref().id().value());
      case Address.SpotById byId -> ObjectKey.spot(byId.id());
      case Address.SpotByRef byRef -> ObjectKey.spot(byRef.ref().id().value());
      case Address.Instance instance -> ObjectKey.spot(instance.id());
    };
  }

  private static long generationOf(final Address address) {
    return switch (address) {
      case Address.ActorByRef byRef -> byRef.ref().generation().value();
      case Address.SpotByRef byRef -> byRef.ref().generation().value();
      default -> 0;
    };
  }

  private static String describe(final Address address) {
    final ObjectKey key = keyOf(address);
    return key.kind().segment() + " '" + key.id() + "'";
  }
}
