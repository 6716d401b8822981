package dev.spotkit.core.mesh;

import dev.spotkit.core.internal.runtime.Listen;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's end of the node-to-node mesh: a TCP listener plus outgoing connections (Netty, NIO transport),
 * with one authenticated, ordered connection per peer pair.
 *
 * <pre>{@code
 * MeshTransport mesh = MeshTransport.start(
 *     MeshConfig.builder(nodeRid, lifecycleGeneration, clusterSecret).build(), listener);
 * PeerConnection peer = mesh.connect(peerEndpoint, peerRid).get(5, TimeUnit.SECONDS);
 * peer.send(frame);                                                 // ordered, one-way
 * byte[] reply = peer.request(correlation -> encode(correlation), deadline).get(5, TimeUnit.SECONDS);
 * }</pre>
 *
 * <p>Connections. {@link #connect} dials, runs the handshake (NodeRid, lifecycle generation, HMAC proof of
 * the cluster secret; see {@link PeerConnection} and the package documentation) and completes with the
 * connection once the peer accepted it. Peers that dial this node show up through
 * {@link MeshListener#onConnected}. When both nodes dial each other at once, one connection survives, the one
 * dialed by the lower NodeRid, and both {@code connect} futures complete with it.
 *
 * <p>Threads: {@link MeshConfig#ioThreads()} daemon event loop threads named {@code spotkit-mesh-<n>}, shared
 * by the listener and the outgoing connections, stopped by {@link #close()}. The listener is called on them.
 */
public final class MeshTransport implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(MeshTransport.class);

  private final MeshConfig config;
  private final MeshListener listener;
  private final EventLoopGroup group;
  private final PeerTable table;
  private final Set<Channel> channels = ConcurrentHashMap.newKeySet();
  /** Correlations of {@link PeerConnection#request}: 1, 2, ... unique on this transport. */
  private final AtomicLong correlations = new AtomicLong();
  /** Set once by {@link #close()}. Written by: the closing thread. Read by: any thread in connect/register. */
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Channel serverChannel;

  private MeshTransport(final MeshConfig config, final MeshListener listener) {
    this.config = config;
    this.listener = listener;
    this.table = new PeerTable(config.nodeRid());
    this.group = new MultiThreadIoEventLoopGroup(config.ioThreads(), new DefaultThreadFactory("spotkit-mesh", true),
        NioIoHandler.newFactory());
  }

  /**
   * Runs {@code then} once every event loop of this transport has read what its sockets held when this was called
   * and run every task queued on it before: a probe is queued on each loop and, when it runs there (after the
   * loop's next pass over its ready sockets), queued once more so a loop that read a full batch reads again; when
   * the last probe ran, {@code then} runs on that loop. Used to judge relocation deadlines in time the node has
   * caught up with (spec 001 section 4.4: a cutover that reached this node in time must not be judged late because
   * an event loop was behind). Never blocks; after {@link #close()} {@code then} may never run.
   *
   * @param then what to run once every loop caught up; must not block.
   * @throws NullPointerException when {@code then} is null.
   */
  public void afterPendingIo(final Runnable then) {
    Objects.requireNonNull(then, "then");
    final List<io.netty.channel.EventLoop> loops = new java.util.ArrayList<>();
    for (io.netty.util.concurrent.EventExecutor e : group) {
      loops.add((io.netty.channel.EventLoop) e);
    }
    final java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(
        loops.size());
    for (io.netty.channel.EventLoop loop : loops) {
      try {
        loop.execute(() -> loop.execute(() -> {
          if (left.decrementAndGet() == 0) {
            then.run();
          }
        }));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        return; // shutting down
      }
    }
  }

  /**
   * Binds {@code config.host():config.port()} and starts accepting peers. Blocks until the bind is done; call
   * it from an ordinary thread, not an event loop.
   *
   * @param config this node's identity, secret and limits.
   * @param listener receives frames and connection events; called on event loops, must not block.
   * @return the running transport.
   * @throws IOException when the address cannot be bound.
   */
  public static MeshTransport start(final MeshConfig config, final MeshListener listener) throws IOException {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(listener, "listener");
    final MeshTransport transport = new MeshTransport(config, listener);
    transport.bind();
    return transport;
  }

  private void bind() throws IOException {
    final ServerBootstrap bootstrap = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, 1024)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(initializer(null));
    final ChannelFuture bound = bootstrap.bind(config.host(), config.port()).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw new IOException("cannot bind mesh listener to " + config.host() + ":" + config.port() + ": "
          + bound.cause() + "; choose another port, or port 0 for a free one", bound.cause());
    }
    serverChannel = bound.channel();
    LOG.debug("mesh listener on {} ({})", serverChannel.localAddress(), config);
  }

  /** Connections allowed in their handshake at once; more are closed at once (unauthenticated flood). */
  static final int MAX_HANDSHAKING = 256;
  /** Connections from one remote address allowed in their handshake at once. */
  static final int MAX_HANDSHAKING_PER_ADDRESS = 32;
  private final ConcurrentHashMap<java.net.InetAddress, java.util.concurrent.atomic.AtomicInteger> handshakingFrom =
      new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicInteger handshaking = new java.util.concurrent.atomic.AtomicInteger();

  private ChannelInitializer<SocketChannel> initializer(final PeerTable.Dial dial) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(final SocketChannel ch) {
        if (!register(ch)) {
          ch.close();
          return;
        }
        final java.net.InetAddress from = ch.remoteAddress() == null ? null : ch.remoteAddress().getAddress();
        final java.util.concurrent.atomic.AtomicInteger fromHere = from == null ? new java.util.concurrent.atomic
            .AtomicInteger() : handshakingFrom.computeIfAbsent(from, a -> new java.util.concurrent.atomic
            .AtomicInteger());
        final int total = handshaking.incrementAndGet();
        final int here = fromHere.incrementAndGet();
        final Runnable done = () -> {
          handshaking.decrementAndGet();
          if (fromHere.decrementAndGet() == 0 && from != null) {
            handshakingFrom.remove(from, fromHere);
          }
        };
        if (total > MAX_HANDSHAKING || here > MAX_HANDSHAKING_PER_ADDRESS) {
          done.run();
          MeshChannels.closeWith(ch, CloseReason.HANDSHAKE_PROTOCOL, (total > MAX_HANDSHAKING ? total
              + " connections" : here + " connections from " + from) + " are in their handshake at once; refusing"
              + " another until one finishes");
          return;
        }
        final io.netty.channel.ChannelHandler traffic = config.trafficHandler();
        if (traffic != null) {
          ch.pipeline().addLast("traffic", traffic);
        }
        ch.pipeline().addLast("pre-auth-limit", new PreAuthLimit(done));
        MeshChannels.installFraming(ch.pipeline(), config.maxFrameLength());
        ch.pipeline().addLast("handshake", new HandshakeHandler(MeshTransport.this, dial));
        ch.pipeline().addLast("errors", new ErrorHandler());
      }
    };
  }

  /**
   * The bound address.
   *
   * @return host and actual port. Any thread.
   */
  public InetSocketAddress localAddress() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  /**
   * This node's id.
   *
   * @return the NodeRid of the config.
   */
  public NodeRid nodeRid() {
    return config.nodeRid();
  }

  /**
   * The connection to {@code expectedPeer}, dialing {@code endpoint} when there is none. Concurrent calls for
   * the same peer share one dial. Never blocks.
   *
   * @param endpoint the peer's mesh listener address.
   * @param expectedPeer the NodeRid that must answer there (from its descriptor); another one is refused
   *     ({@link CloseReason#WRONG_PEER}).
   * @return completes with the connection once the peer accepted it, or fails with
   *     {@link SpotkitException.Unavailable} (cause {@link MeshConnectionException} with the typed reason:
   *     refused, wrong peer, wrong secret, timeout, transport closed).
   * @throws SpotkitException.InvalidOperation when {@code expectedPeer} is this node.
   */
  public CompletableFuture<PeerConnection> connect(final InetSocketAddress endpoint, final NodeRid expectedPeer) {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(expectedPeer, "expectedPeer");
    if (expectedPeer.equals(config.nodeRid())) {
      throw new SpotkitException.InvalidOperation("connect(" + endpoint + ", " + expectedPeer
          + ") names this node itself; a node does not connect to itself");
    }
    if (closed.get()) {
      return CompletableFuture.failedFuture(new SpotkitException.Unavailable("mesh transport of " + nodeRid()
          + " is closed", new MeshConnectionException(CloseReason.TRANSPORT_CLOSED, "transport closed")));
    }
    final Object existing = table.connectOrDial(expectedPeer);
    if (existing instanceof PeerConnection conn) {
      return CompletableFuture.completedFuture(conn);
    }
    if (existing instanceof CompletableFuture<?> shared) {
      @SuppressWarnings("unchecked")
      final CompletableFuture<PeerConnection> future = (CompletableFuture<PeerConnection>) shared;
      return future.copy();
    }
    final PeerTable.Dial dial = (PeerTable.Dial) existing;
    dial.endpoint = endpoint;
    startDial(dial);
    return dial.future.copy();
  }

  private void startDial(final PeerTable.Dial dial) {
    new Bootstrap().group(group).channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
            config.handshakeTimeout().toMillis()))
        .handler(initializer(dial))
        .connect(dial.endpoint)
        .addListener((ChannelFutureListener) f -> {
          if (!f.isSuccess()) {
            table.dialFailed(dial, CloseReason.IO_ERROR, "connect to " + dial.endpoint + " failed: " + f.cause());
          }
        });
  }

  /**
   * The open connection to a peer, if any.
   *
   * @param peer the peer's NodeRid.
   * @return the connection, or empty. Any thread.
   */
  public Optional<PeerConnection> connection(final NodeRid peer) {
    return Optional.ofNullable(table.established(peer));
  }

  /**
   * Every open connection.
   *
   * @return a snapshot. Any thread.
   */
  public List<PeerConnection> connections() {
    return table.established();
  }

  /**
   * Closes every connection ({@link CloseReason#TRANSPORT_CLOSED}; listeners hear
   * {@link MeshListener#onConnectionLost}), fails dials in progress, and stops the event loops, waiting at most
   * {@link MeshConfig#closeTimeout()}. Idempotent. Called on one of this transport's own event loops it only
   * starts the close.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (serverChannel != null) {
      serverChannel.close();
    }
    for (Channel ch : channels.toArray(Channel[]::new)) {
      MeshChannels.closeWith(ch, CloseReason.TRANSPORT_CLOSED, "mesh transport of " + nodeRid() + " closed");
    }
    for (PeerTable.Dial dial : table.dials()) {
      table.dialFailed(dial, CloseReason.TRANSPORT_CLOSED, "mesh transport of " + nodeRid() + " closed");
    }
    final long millis = config.closeTimeout().toMillis();
    final io.netty.util.concurrent.Future<?> stopped = group.shutdownGracefully(0, millis, TimeUnit.MILLISECONDS);
    if (inOwnEventLoop()) {
      return;
    }
    if (!stopped.awaitUninterruptibly(millis + 1000)) {
      LOG.warn("mesh transport close: event loops still running after {} ms", millis);
    }
  }

  MeshConfig config() {
    return config;
  }

  PeerTable table() {
    return table;
  }

  long nextCorrelation() {
    return correlations.incrementAndGet();
  }

  /** Failed handshakes after which a node that never completed one says its secret is likely wrong. */
  static final int AUTH_FAILURES_BEFORE_ERROR = 3;
  private final java.util.concurrent.atomic.AtomicInteger authFailures = new java.util.concurrent.atomic
      .AtomicInteger();
  private final AtomicBoolean everAuthenticated = new AtomicBoolean();
  private final AtomicBoolean secretErrorLogged = new AtomicBoolean();

  /** Event loop: a handshake completed (the secrets match). */
  void authenticated() {
    everAuthenticated.set(true);
  }

  /**
   * Event loop: a handshake failed with a wrong proof (or the dialer hung up right after checking ours). When
   * every handshake so far failed that way, this node (not its peers) most likely holds another cluster
   * secret: one ERROR line says so, once.
   */
  void authenticationFailed() {
    final int failures = authFailures.incrementAndGet();
    if (failures >= AUTH_FAILURES_BEFORE_ERROR && !everAuthenticated.get()
        && secretErrorLogged.compareAndSet(false, true)) {
      LOG.error("mesh node {}: {} mesh handshakes failed with AUTHENTICATION_FAILED and none ever succeeded: this"
          + " node's cluster secret (SPOTKIT_CLUSTER_SECRET) most likely differs from the mesh's; no peer can"
          + " reach it", nodeRid(), failures);
    }
  }

  /**
   * Whether this node said (once, at ERROR) that its cluster secret most likely differs from the mesh's.
   *
   * @return true once said.
   */
  boolean secretLikelyWrong() {
    return secretErrorLogged.get();
  }

  /**
   * Connections in their handshake now (inbound and dials), for tests of the pre-auth cap.
   *
   * @return the count, 0..{@link #MAX_HANDSHAKING}+1.
   */
  int handshakingNow() {
    return handshaking.get();
  }

  /** Event loop: a connection finished its handshake. */
  void announce(final PeerConnection conn) {
    LOG.debug("mesh {} connected to {}", nodeRid(), conn);
    try {
      listener.onConnected(conn);
    } catch (RuntimeException e) {
      LOG.error("mesh listener onConnected({}) threw", conn, e);
      MeshChannels.closeWith(conn.channel(), CloseReason.LISTENER_FAILED, String.valueOf(e));
    }
  }

  /** Event loop: a framework frame for the listener. */
  void deliver(final PeerConnection conn, final byte[] frame) {
    try {
      listener.onFrame(conn, frame);
    } catch (RuntimeException e) {
      LOG.error("mesh listener onFrame({}) threw", conn, e);
      MeshChannels.closeWith(conn.channel(), CloseReason.LISTENER_FAILED, String.valueOf(e));
    }
  }

  /**
   * Event loop: a command 52 frame still in the channel's receive buffer, for the listener. Ownership of the one
   * reference passes to {@link MeshListener#onStateFrame} at the call, whether it returns or throws.
   */
  void deliverState(final PeerConnection conn, final ByteBuf frame) {
    try {
      listener.onStateFrame(conn, frame);
    } catch (RuntimeException e) {
      LOG.error("mesh listener onStateFrame({}) threw", conn, e);
      MeshChannels.closeWith(conn.channel(), CloseReason.LISTENER_FAILED, String.valueOf(e));
    }
  }

  /** Event loop: an announced connection closed. */
  void lost(final PeerConnection conn, final CloseReason reason) {
    table.closed(conn);
    try {
      listener.onConnectionLost(conn, reason);
    } catch (RuntimeException e) {
      LOG.error("mesh listener onConnectionLost({}) threw", conn, e);
    }
  }

  /**
   * Our dial was rejected as a duplicate: the peer's own connection should arrive. When it has not within a fifth
   * of the handshake timeout, connect again (at most {@link #MAX_REDIALS} times): the peer may have refused us for
   * a connection it still thought open that this side had already closed, and then it never dials. After the last
   * redial the dial fails.
   */
  void awaitPeerDial(final PeerTable.Dial dial) {
    final long waitNanos = config.handshakeTimeout().toNanos() / (MAX_REDIALS + 1);
    try {
      group.next().schedule(() -> {
        if (table.redialAfterPeerSilence(dial, MAX_REDIALS, "peer " + dial.peer + " rejected our dial as a"
            + " duplicate " + (dial.redials + 1) + " times and its own connection did not arrive within "
            + config.handshakeTimeout())) {
          startDial(dial);
        }
      }, waitNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      table.dialFailed(dial, CloseReason.TRANSPORT_CLOSED, "transport closed");
    }
  }

  /** Fresh connects of one dial whose duplicate rejections were not followed by the peer's own connection. */
  static final int MAX_REDIALS = 4;

  private boolean register(final Channel ch) {
    channels.add(ch);
    ch.closeFuture().addListener(f -> channels.remove(ch));
    if (closed.get()) { // pairs with close(): set closed, then snapshot channels (one of the two sees the other)
      channels.remove(ch);
      return false;
    }
    return true;
  }

  private boolean inOwnEventLoop() {
    return Listen.inEventLoopOf(group);
  }

  @Override
  public String toString() {
    return "MeshTransport[" + nodeRid() + " on " + (serverChannel == null ? "unbound"
        : serverChannel.localAddress()) + ", connections=" + table.established().size() + "]";
  }
}
