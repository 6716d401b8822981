package dev.spotkit.core.mesh;

import dev.spotkit.core.NodeRid;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The handshake of one connection, as dialer or acceptor (see {@link Handshake} for the messages). Until it
 * finishes, a framework frame is {@link CloseReason#UNAUTHENTICATED_FRAME}; a handshake message out of turn is
 * {@link CloseReason#HANDSHAKE_PROTOCOL}; a wrong proof is {@link CloseReason#AUTHENTICATION_FAILED}; a peer
 * other than the expected one is {@link CloseReason#WRONG_PEER}; not finishing within
 * {@link MeshConfig#handshakeTimeout()} is {@link CloseReason#HANDSHAKE_TIMEOUT}. Each closes the connection.
 * On success it replaces itself with a {@link PeerChannelHandler} and tells the listener.
 *
 * <p>Per-connection state in fields, touched only on the channel's event loop: never {@code @Sharable}.
 */
final class HandshakeHandler extends ChannelInboundHandlerAdapter {

  private enum State { AWAIT_HELLO, AWAIT_CHALLENGE, AWAIT_PROOF, AWAIT_ACCEPT, DONE }

  private final MeshTransport transport;
  /** The dial this connection serves; null on the acceptor side. */
  private final PeerTable.Dial dial;
  private final Handshake.Hello own;
  private State state;
  /** Our dial was rejected as a duplicate and now waits for the peer (or connects again): set once, event loop. */
  private boolean dialHandedOff;
  private Handshake.Hello dialerHello;
  private Handshake.Hello acceptorHello;
  private ScheduledFuture<?> timeout;

  HandshakeHandler(final MeshTransport transport, final PeerTable.Dial dial) {
    this.transport = transport;
    this.dial = dial;
    final MeshConfig config = transport.config();
    this.own = new Handshake.Hello(config.nodeRid().value(), config.lifecycleGeneration(), Handshake.nonce(),
        config.maxFrameLength());
    this.state = dial == null ? State.AWAIT_HELLO : State.AWAIT_CHALLENGE;
  }

  @Override
  public void channelActive(final ChannelHandlerContext ctx) {
    final long nanos = transport.config().handshakeTimeout().toNanos();
    timeout = ctx.executor().schedule(() -> MeshChannels.closeWith(ctx.channel(), CloseReason.HANDSHAKE_TIMEOUT,
        "handshake not finished within " + transport.config().handshakeTimeout() + " (state " + state + ")"),
        nanos, TimeUnit.NANOSECONDS);
    if (dial != null) {
      dialerHello = own;
      write(ctx, Handshake.hello(own));
    }
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(final ChannelHandlerContext ctx, final Object msg) {
    if (msg instanceof BadFrame bad) {
      MeshChannels.closeWith(ctx.channel(), bad.reason(), bad.detail());
      return;
    }
    if (msg instanceof BufferedFrame buffered) {
      final int command = buffered.command();
      buffered.release(); // ours from channelRead on; nothing reads it
      unauthenticated(ctx, command);
      return;
    }
    final InboundFrame frame = (InboundFrame) msg;
    if (!frame.handshake()) {
      unauthenticated(ctx, frame.bytes()[3] & 0xFF);
      return;
    }
    try {
      on(ctx, Handshake.parse(frame.bytes()));
    } catch (MeshConnectionException e) {
      if (e.reason() == CloseReason.AUTHENTICATION_FAILED) {
        transport.authenticationFailed();
      }
      MeshChannels.closeWith(ctx.channel(), e.reason(), e.detail());
    }
  }

  private void unauthenticated(final ChannelHandlerContext ctx, final int command) {
    MeshChannels.closeWith(ctx.channel(), CloseReason.UNAUTHENTICATED_FRAME, "framework frame (command "
        + command + ") before the handshake finished (state " + state + ")");
  }

  private void on(final ChannelHandlerContext ctx, final Handshake.Message m) {
    if (state == State.AWAIT_HELLO && m instanceof Handshake.HelloMsg hello) {
      dialerHello = hello.hello();
      checkNotSelf(dialerHello);
      // Answer in the dialer's form: a dialer that sent no frame limit gets none (it could not parse it).
      acceptorHello = dialerHello.maxFrameLength() == 0 ? new Handshake.Hello(own.rid(), own.generation(),
          own.nonce(), 0) : own;
      state = State.AWAIT_PROOF;
      write(ctx, Handshake.challenge(acceptorHello, Handshake.acceptorProof(secret(), dialerHello,
          acceptorHello)));
    } else if (state == State.AWAIT_CHALLENGE && m instanceof Handshake.ChallengeMsg challenge) {
      acceptorHello = challenge.hello();
      checkNotSelf(acceptorHello);
      if (acceptorHello.rid() != dial.peer.value()) {
        throw new MeshConnectionException(CloseReason.WRONG_PEER, "expected peer " + dial.peer + ", got "
            + new NodeRid(acceptorHello.rid()) + " at " + ctx.channel().remoteAddress());
      }
      verify(Handshake.acceptorProof(secret(), dialerHello, acceptorHello), challenge.proof());
      state = State.AWAIT_ACCEPT;
      write(ctx, Handshake.proof(Handshake.dialerProof(secret(), dialerHello, acceptorHello)));
    } else if (state == State.AWAIT_PROOF && m instanceof Handshake.ProofMsg proof) {
      verify(Handshake.dialerProof(secret(), dialerHello, acceptorHello), proof.proof());
      decide(ctx);
    } else if (state == State.AWAIT_ACCEPT && m instanceof Handshake.AcceptMsg) {
      final PeerConnection conn = newConnection(ctx, acceptorHello);
      if (transport.table().outgoingAccepted(dial, conn)) {
        establish(ctx, conn);
      } else {
        state = State.DONE;
        MeshChannels.closeWith(ctx.channel(), CloseReason.DUPLICATE_CONNECTION, "another connection to "
            + conn.peerRid() + " was established first");
      }
    } else if (state == State.AWAIT_ACCEPT && m instanceof Handshake.RejectMsg reject) {
      onRejected(ctx, reject.reason());
    } else {
      throw Handshake.protocol(m.getClass().getSimpleName() + " in state " + state);
    }
  }

  /** Acceptor: the dialer proved the secret; the peer table decides whether this connection is the one. */
  private void decide(final ChannelHandlerContext ctx) {
    final PeerConnection conn = newConnection(ctx, dialerHello);
    final PeerTable.Decision decision = transport.table().incomingAuthenticated(conn);
    if (decision.accept()) {
      write(ctx, Handshake.accept());
      establish(ctx, conn);
      if (decision.superseded() != null) {
        MeshChannels.closeWith(decision.superseded().channel(), CloseReason.SUPERSEDED, "peer " + conn.peerRid()
            + " reconnected with generation " + conn.peerGeneration());
      }
    } else {
      state = State.DONE;
      final String detail = "refused peer " + conn.peerRid() + " generation " + conn.peerGeneration();
      ctx.writeAndFlush(Unpooled.wrappedBuffer(Handshake.reject(decision.reason())))
          .addListener((ChannelFutureListener) f -> MeshChannels.closeWith(ctx.channel(), decision.reason(),
              detail));
    }
  }

  private void onRejected(final ChannelHandlerContext ctx, final CloseReason reason) {
    state = State.DONE;
    if (reason == CloseReason.DUPLICATE_CONNECTION && transport.table().outgoingDuplicate(dial)) {
      dialHandedOff = true; // this channel's close is not the dial's end: it may connect again
      transport.awaitPeerDial(dial);
    }
    MeshChannels.closeWith(ctx.channel(), reason == CloseReason.DUPLICATE_CONNECTION ? reason
        : CloseReason.REJECTED_BY_PEER, "peer " + dial.peer + " refused the connection: " + reason);
  }

  private void establish(final ChannelHandlerContext ctx, final PeerConnection conn) {
    state = State.DONE;
    timeout.cancel(false);
    ctx.pipeline().replace(this, "peer", new PeerChannelHandler(transport, conn));
    transport.authenticated();
    transport.announce(conn);
  }

  @Override
  public void channelInactive(final ChannelHandlerContext ctx) {
    if (timeout != null) {
      timeout.cancel(false);
    }
    if (state == State.AWAIT_PROOF && ctx.channel().attr(MeshChannels.CLOSE_INFO).get() == null) {
      // the dialer closed right after checking our proof: what a peer with another cluster secret does
      transport.authenticationFailed();
    }
    if (dial != null && !dialHandedOff) {
      final MeshChannels.CloseInfo info = MeshChannels.closeInfo(ctx.channel());
      transport.table().dialChannelClosed(dial, info.reason(), info.detail()); // no-op once the dial completed
    }
    ctx.fireChannelInactive();
  }

  private PeerConnection newConnection(final ChannelHandlerContext ctx, final Handshake.Hello peer) {
    return new PeerConnection(transport, ctx.channel(), new NodeRid(peer.rid()), peer.generation(), dial != null,
        peer.frameLimit());
  }

  private void checkNotSelf(final Handshake.Hello peer) {
    if (peer.rid() == own.rid()) {
      throw new MeshConnectionException(CloseReason.SELF_CONNECTION, "peer claims this node's own NodeRid "
          + new NodeRid(own.rid()));
    }
    if (peer.rid() == 0 || peer.generation() <= 0) {
      throw Handshake.protocol("peer hello with NodeRid " + Long.toHexString(peer.rid()) + " and generation "
          + Long.toUnsignedString(peer.generation()) + "; both must be non-zero (generation 1..2^63-1)");
    }
  }

  private void verify(final byte[] expected, final byte[] actual) {
    if (!Handshake.matches(expected, actual)) {
      throw new MeshConnectionException(CloseReason.AUTHENTICATION_FAILED,
          "the peer's HMAC proof does not match: it does not hold this mesh's cluster secret");
    }
  }

  private byte[] secret() {
    return transport.config().clusterSecret();
  }

  private static void write(final ChannelHandlerContext ctx, final byte[] message) {
    ctx.writeAndFlush(Unpooled.wrappedBuffer(message)); // ownership passes to Netty, which releases it
  }
}
