package dev.spotkit.examples.chat;

import dev.spotkit.core.session.SessionServerConfig;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The baseline for the chat benchmark: a plain Netty server speaking the {@link ChatProtocol} with no actors. Room
 * membership is a map from room name to the set of its members' channels; a line said in a room is encoded once
 * and written to every member's channel (the sender too) from the sender's event loop, so each sender's lines reach
 * every member in the order it sent them ({@code writeAndFlush} per member and line). Rooms exist while they have
 * members. Started with {@code consolidateFlushes}, each channel also gets Netty's stock
 * {@link FlushConsolidationHandler} (also outside a read), so a busy member gets several lines per TCP segment
 * instead of one: the same server with the one batching step a tuned Netty server adds.
 *
 * <p>Same answers as the {@link ChatServer} for {@code /nick}, {@code /join}, {@code /leave}, {@code /rooms},
 * {@code /who}, a room line, an unsafe line ({@link ChatProtocol#lineProblem}) and an unknown command;
 * {@code /where} answers {@code where ROOM node=0} (one process, no mesh). A line over
 * {@value #MAX_LINE_BYTES} bytes gets an error line. What it leaves out on purpose, being the "no framework"
 * floor: no flow control (a slow client's writes queue without bound), no relocation, no mesh. Invalid UTF-8 is
 * decoded with replacement characters rather than refused.
 *
 * <p>Threads: {@link SessionServerConfig#DEFAULT_IO_THREADS} NIO event loops (the same count a Spotkit node's
 * session listener uses by default), daemon threads named {@code raw-chat-*}.
 */
public final class RawChatServer implements AutoCloseable {

  /** Longest line taken, in bytes without the LF (the Spotkit chat server's limit too). */
  public static final int MAX_LINE_BYTES = 8192;

  private final EventLoopGroup group;
  /** The bound listener; set once by {@link #start} before it returns. */
  private Channel listener;
  /** Members of each room with members. */
  private final Map<String, Set<Channel>> rooms = new ConcurrentHashMap<>();

  private RawChatServer(final EventLoopGroup group) {
    this.group = group;
  }

  /**
   * Starts listening.
   *
   * @param host address to bind, e.g. 127.0.0.1.
   * @param port port to bind, 0..65535; 0 = a free port (see {@link #port()}).
   * @return the running server.
   * @throws IllegalArgumentException when {@code port} is out of range.
   * @throws java.io.UncheckedIOException when the address cannot be bound (in use, no permission); the message
   *     names the address.
   */
  public static RawChatServer start(final String host, final int port) {
    return start(host, port, false);
  }

  /**
   * Starts listening, with or without flush consolidation.
   *
   * @param host address to bind, e.g. 127.0.0.1.
   * @param port port to bind, 0..65535; 0 = a free port (see {@link #port()}).
   * @param consolidateFlushes whether each channel coalesces its flushes ({@link FlushConsolidationHandler}).
   * @return the running server.
   * @throws IllegalArgumentException when {@code port} is out of range.
   * @throws java.io.UncheckedIOException when the address cannot be bound (in use, no permission); the message
   *     names the address.
   */
  public static RawChatServer start(final String host, final int port, final boolean consolidateFlushes) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " must be between 0 and 65535 (0 = a free port)");
    }
    final EventLoopGroup group = new MultiThreadIoEventLoopGroup(SessionServerConfig.DEFAULT_IO_THREADS,
        new DefaultThreadFactory("raw-chat", true), NioIoHandler.newFactory());
    final RawChatServer server = new RawChatServer(group);
    try {
      server.listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
          .option(ChannelOption.SO_BACKLOG, 1024)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(final SocketChannel channel) {
              if (consolidateFlushes) {
                channel.pipeline().addLast(new FlushConsolidationHandler(
                    FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
              }
              channel.pipeline().addLast(new LineBasedFrameDecoder(MAX_LINE_BYTES, true, true), server.new Client());
            }
          })
          .bind(host, port).syncUninterruptibly().channel();
      return server;
    } catch (Exception e) { // Netty rethrows the bind's checked IOException (e.g. BindException) unchecked
      group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
      throw new java.io.UncheckedIOException(new java.io.IOException("cannot listen on " + host + ":" + port + ": "
          + e.getMessage(), e));
    }
  }

  /**
   * The port clients connect to.
   *
   * @return the bound port (the chosen one when started with port 0).
   */
  public int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  /** Stops listening, closes every client connection and stops the event loops; waits up to 5 s. Idempotent. */
  @Override
  public void close() {
    listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /** One connection: its nick and room, touched only on its event loop. */
  private final class Client extends SimpleChannelInboundHandler<ByteBuf> {
    private String nick;
    private String room;

    @Override
    public void channelActive(final ChannelHandlerContext ctx) {
      nick = "guest-" + Integer.toUnsignedString(ctx.channel().id().hashCode());
      ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(final ChannelHandlerContext ctx, final ByteBuf frame) {
      String line = frame.toString(StandardCharsets.UTF_8);
      if (line.endsWith("\r")) {
        line = line.substring(0, line.length() - 1); // CRLF
      }
      if (!line.startsWith("/")) {
        say(ctx.channel(), line);
        return;
      }
      final int space = line.indexOf(' ');
      final String command = space < 0 ? line : line.substring(0, space);
      final String arg = space < 0 ? "" : line.substring(space + 1).strip();
      switch (command) {
        case "/nick" -> {
          final String problem = ChatProtocol.nickProblem(arg);
          if (problem == null) {
            nick = arg;
            ctx.channel().attr(NICK).set(nick);
          }
          reply(ctx.channel(), problem == null ? ChatProtocol.OK_NICK + nick : ChatProtocol.ERROR + problem);
        }
        case "/join" -> join(ctx.channel(), arg);
        case "/leave" -> {
          if (room == null) {
            reply(ctx.channel(), ChatProtocol.ERROR + "you are in no room");
          } else {
            final String left = room;
            leave(ctx.channel());
            reply(ctx.channel(), ChatProtocol.OK_LEAVE + left);
          }
        }
        case "/rooms" -> reply(ctx.channel(), roomsLine());
        case "/who" -> reply(ctx.channel(), room == null ? "who: you are in no room" : whoLine(room));
        case "/where" -> reply(ctx.channel(), room == null ? "where: in no room" : ChatProtocol.WHERE + room
            + " node=0");
        default -> reply(ctx.channel(), ChatProtocol.ERROR + "unknown command " + ChatProtocol.echo(command)
            + "; try " + ChatProtocol.HELP);
      }
    }

    private void say(final Channel channel, final String text) {
      if (room == null) {
        reply(channel, ChatProtocol.ERROR + "you are in no room; /join ROOM first");
        return;
      }
      final String problem = ChatProtocol.lineProblem(text);
      if (problem != null) {
        reply(channel, ChatProtocol.LINE_REFUSED + problem);
        return;
      }
      if (text.isEmpty()) {
        return;
      }
      final Set<Channel> members = rooms.get(room);
      if (members == null) {
        return;
      }
      final ByteBuf line = encode(channel, ChatProtocol.roomLine(room, nick, text));
      try {
        for (Channel member : members) {
          member.writeAndFlush(line.retainedDuplicate(), member.voidPromise());
        }
      } finally {
        line.release();
      }
    }

    private void join(final Channel channel, final String name) {
      if (!ChatProtocol.NAME.matcher(name).matches()) {
        reply(channel, ChatProtocol.ERROR + "bad room '" + ChatProtocol.echo(name)
            + "': use 1 to 32 of A-Z a-z 0-9 _ -");
        return;
      }
      if (!name.equals(room)) {
        leave(channel);
        rooms.compute(name, (key, members) -> {
          final Set<Channel> joined = members == null ? ConcurrentHashMap.newKeySet() : members;
          joined.add(channel);
          return joined;
        });
        room = name;
        channel.attr(NICK).set(nick);
      }
      reply(channel, ChatProtocol.OK_JOIN + room);
    }

    private void leave(final Channel channel) {
      if (room == null) {
        return;
      }
      rooms.computeIfPresent(room, (key, members) -> {
        members.remove(channel);
        return members.isEmpty() ? null : members;
      });
      room = null;
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx) {
      leave(ctx.channel());
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause) {
      if (cause instanceof TooLongFrameException) {
        reply(ctx.channel(), ChatProtocol.ERROR + "line exceeds maxLineBytes " + MAX_LINE_BYTES);
        return;
      }
      ctx.close(); // a connection error: the client is gone
    }
  }

  private static final io.netty.util.AttributeKey<String> NICK = io.netty.util.AttributeKey.valueOf("raw-chat-nick");

  /** {@code rooms: ROOM(3) ROOM(1)} sorted by name, or {@code rooms: none}. */
  private String roomsLine() {
    final Map<String, Integer> counts = new TreeMap<>();
    rooms.forEach((name, members) -> counts.put(name, members.size()));
    if (counts.isEmpty()) {
      return "rooms: none";
    }
    final StringBuilder line = new StringBuilder("rooms:");
    counts.forEach((name, count) -> line.append(' ').append(name).append('(').append(count).append(')'));
    return line.toString();
  }

  /** {@code who ROOM: NICK NICK}: the nicks the members had when they joined. */
  private String whoLine(final String room) {
    final StringBuilder line = new StringBuilder("who " + room + ":");
    for (Channel member : rooms.getOrDefault(room, Set.of())) {
      line.append(' ').append(member.attr(NICK).get());
    }
    return line.toString();
  }

  private static void reply(final Channel channel, final String line) {
    channel.writeAndFlush(encode(channel, line), channel.voidPromise());
  }

  /** The line and its LF as UTF-8, in a buffer of the channel's allocator (the caller releases or writes it). */
  private static ByteBuf encode(final Channel channel, final String line) {
    final ByteBuf buffer = channel.alloc().buffer(ByteBufUtil.utf8MaxBytes(line) + 1);
    ByteBufUtil.writeUtf8(buffer, line);
    return buffer.writeByte('\n');
  }
}
