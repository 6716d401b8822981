package dev.spotkit.core.session;

import dev.spotkit.core.internal.runtime.Listen;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP listener for client sessions (Netty, NIO transport).
 *
 * <p>Each accepted connection gets a {@link Session} and a pipeline of one-job handlers:
 * {@code flush-consolidation} (outbound: one flush per batch of queued pushes), the codec's decoders
 * ({@link FrameCodec#install}), then {@code session} (dispatch to the {@link SessionHandler}). The
 * {@link SessionHandler} sees, per connection and all on that connection's event loop: {@code onOpen} once,
 * then {@code onFrame} per decoded frame in arrival order, then
 * {@code onClosed} exactly once (peer gone, session closed, push refused, I/O error, or this server
 * closed). A frame the codec rejects gets an error reply and never stops the server. A client that shuts its
 * output down (half-close) still gets the replies to the frames it sent: the session stops reading, waits until
 * those frames were handled and the pushes went quiet ({@link SessionServerConfig#halfCloseQuiet()}), at most
 * {@link SessionServerConfig#halfCloseDrain()}, flushes and closes.
 *
 * <pre>{@code
 * try (SessionServer server = SessionServer.start(
 *     SessionServerConfig.builder().port(0).codec(LineCodec.utf8()).build(),
 *     session -> new SessionInbound() {
 *       public void onFrame(Object line) { session.push("you said " + line); }
 *       public void onClosed() { }
 *     })) {
 *   int port = server.localAddress().getPort();
 *   ...
 * }
 * }</pre>
 *
 * <p>Threads: the listener owns {@link SessionServerConfig#ioThreads()} daemon event loop threads named
 * {@code spotkit-session-<n>}; they are stopped by {@link #close()}.
 */
public final class SessionServer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SessionServer.class);

  private final SessionServerConfig config;
  private final SessionHandler handler;
  private final EventLoopGroup group;
  private final Set<NettySession> sessions = ConcurrentHashMap.newKeySet();

  /** Set once by {@link #close()}. Written by: the closing thread. Read by: event loops in register. */
  private final AtomicBoolean closed = new AtomicBoolean();

  private volatile Channel serverChannel;

  private SessionServer(final SessionServerConfig config, final SessionHandler handler) {
    this.config = config;
    this.handler = handler;
    this.group = new MultiThreadIoEventLoopGroup(config.ioThreads(),
        new DefaultThreadFactory("spotkit-session", true), NioIoHandler.newFactory());
  }

  /**
   * Binds {@code config.host():config.port()} and starts accepting sessions. Blocks the caller until the
   * bind is done; call it from an ordinary thread, not an event loop.
   *
   * @param config listener settings; port 0 binds a free port, see {@link #localAddress()}.
   * @param handler receives every accepted session; called on event loops, must not block.
   * @return the running server.
   * @throws IOException if the address cannot be bound (in use, unknown host, no permission).
   */
  public static SessionServer start(final SessionServerConfig config, final SessionHandler handler)
      throws IOException {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(handler, "handler");
    final SessionServer server = new SessionServer(config, handler);
    server.bind();
    return server;
  }

  private void bind() throws IOException {
    final ServerBootstrap bootstrap = new ServerBootstrap()
        .group(group)
        .channel(NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, 1024)
        .childOption(ChannelOption.TCP_NODELAY, true)
        // A client may shut its output down after its last line and keep reading (nc -N): keep the session
        // open for replies until those lines were handled and the replies went quiet, bounded by
        // SessionServerConfig#halfCloseDrain (NettySession#inputEnded).
        .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(final SocketChannel ch) {
            // Outbound only: pushes from many threads are queued as separate writes; one flush per batch
            // of queued writes instead of one write syscall per pushed message.
            ch.pipeline().addLast("flush-consolidation", new FlushConsolidationHandler(256, true));
            config.codec().install(ch.pipeline());
            ch.pipeline().addLast("session", new SessionChannelHandler(SessionServer.this));
          }
        });
    final ChannelFuture bound = bootstrap.bind(config.host(), config.port()).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      final Throwable cause = bound.cause();
      throw new IOException("cannot bind session listener to " + config.host() + ":" + config.port() + ": "
          + cause + "; choose another port, or port 0 for a free one", cause);
    }
    serverChannel = bound.channel();
    LOG.debug("session listener on {} ({})", serverChannel.localAddress(), config);
  }

  /**
   * The bound address.
   *
   * @return host and the actual port (the chosen one when the config said 0). Any thread.
   */
  public InetSocketAddress localAddress() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  /**
   * Settings of this listener.
   *
   * @return the config given to {@link #start}.
   */
  public SessionServerConfig config() {
    return config;
  }

  /**
   * Sessions open right now.
   *
   * @return the count; a snapshot that may lag connections being accepted or closed. Any thread.
   */
  public int sessionCount() {
    return sessions.size();
  }

  /**
   * Whether {@link #close()} was called.
   *
   * @return true once closing started. Any thread.
   */
  public boolean isClosed() {
    return closed.get();
  }

  /**
   * Stops accepting, closes every session (each gets {@code onClosed} exactly once) and stops the event
   * loops, waiting at most {@link SessionServerConfig#closeTimeout()} in all for both. Idempotent. From an
   * ordinary thread it returns after the sessions were told; called from one of this server's own event loops
   * (a handler) it only starts the close and returns at once.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    final Channel listener = serverChannel;
    if (listener != null) {
      listener.close();
    }
    final NettySession[] open = sessions.toArray(NettySession[]::new);
    final CompletableFuture<?>[] told = new CompletableFuture<?>[open.length];
    for (int i = 0; i < open.length; i++) {
      open[i].close();
      told[i] = open[i].closedDelivered();
    }
    final long timeoutNanos = config.closeTimeout().toNanos();
    final long deadline = System.nanoTime() + timeoutNanos;
    final io.netty.util.concurrent.Future<?> stopped =
        group.shutdownGracefully(0, timeoutNanos, TimeUnit.NANOSECONDS);
    if (inOwnEventLoop()) {
      return;
    }
    try {
      CompletableFuture.allOf(told).get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException | ExecutionException e) {
      LOG.warn("session listener close: not every session was told within {}", config.closeTimeout());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (!stopped.awaitUninterruptibly(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      LOG.warn("session listener close: event loops still running after {}", config.closeTimeout());
    }
  }

  /**
   * Event loop: adds a new session unless the server is closing.
   *
   * @return false when closing: the caller closes the channel without calling onOpen.
   */
  boolean register(final NettySession session) {
    sessions.add(session);
    if (closed.get()) { // pairs with close(): set closed, then snapshot sessions (one of the two sees the other)
      sessions.remove(session);
      return false;
    }
    return true;
  }

  void unregister(final NettySession session) {
    sessions.remove(session);
  }

  SessionHandler handler() {
    return handler;
  }

  private boolean inOwnEventLoop() {
    return Listen.inEventLoopOf(group);
  }

  @Override
  public String toString() {
    return "SessionServer[" + (serverChannel == null ? "unbound" : serverChannel.localAddress()) + ", sessions="
        + sessions.size() + ", closed=" + closed.get() + "]";
  }
}
