package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.ApplicationPayload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.spotkit.relocation.wire.OperationId;
import dev.spotkit.relocation.wire.WireFormatException;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random and mutated frames against every decoder of this package. For any input, a decoder either returns
 * or throws {@link WireFormatException}: no other exception escapes, it finishes within a generous time bound
 * (no hang), and it allocates no more than a small multiple of the input (no allocation sized from a forged
 * length). A frame that decodes re-encodes to the same bytes (the encoding is canonical), and valid records
 * round-trip.
 */
class WireDecoderPropertiesTest {

  /** Allocation bound per decode: a few copies of the input plus room for an exception and its message. */
  private static final long FIXED_ALLOCATION_ALLOWANCE = 512 * 1024;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** One decoder and the encoder that must reproduce its input. */
  private record Codec(String name, Function<byte[], Object> decode, Function<Object, byte[]> encode) { }

  private static final List<Codec> CODECS = List.of(
      new Codec("userSpotCreate", CreationCodec::decodeUserSpotCreate, m -> CreationCodec.encode((UserSpotCreate) m)),
      new Codec("actorCreate", CreationCodec::decodeActorCreate, m -> CreationCodec.encode((ActorCreate) m)),
      new Codec("userSpotClose", UserSpotCloseCodec::decode, m -> UserSpotCloseCodec.encode((UserSpotClose) m)),
      reply(OperationKind.USER_SPOT_CREATE), reply(OperationKind.USER_SPOT_CLOSE),
      reply(OperationKind.ACTOR_CREATE), reply(OperationKind.ACTOR_JOIN), reply(OperationKind.NODE_REQUEST),
      new Codec("applicationMessage", ApplicationMessageCodec::decode,
          m -> ApplicationMessageCodec.encode((ApplicationMessage) m)),
      new Codec("actorDestroy", ActorDestroy::decode, m -> ((ActorDestroy) m).encode()),
      new Codec("head", FrameHead::decode, null),
      new Codec("correlation", ReplyCodec::correlation, null));

  private static Codec reply(final OperationKind kind) {
    return new Codec("reply/" + kind, f -> ReplyCodec.decode(f, kind), m -> ReplyCodec.encode((Reply) m));
  }

  /** Decodes under a time bound; checks the allocation bound; re-encodes what decoded. */
  private static void feed(final byte[] input) {
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      for (Codec codec : CODECS) {
        final long before = THREADS.getCurrentThreadAllocatedBytes();
        Object decoded = null;
        try {
          decoded = codec.decode().apply(input);
        } catch (WireFormatException expected) {
          assertThat(expected.offset()).isBetween(0L, (long) input.length);
        }
        final long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).as("%s allocated for %d input bytes", codec.name(), input.length)
            .isLessThan(8L * input.length + FIXED_ALLOCATION_ALLOWANCE);
        if (decoded != null && codec.encode() != null) {
          assertThat(codec.encode().apply(decoded)).as("%s re-encodes", codec.name()).isEqualTo(input);
        }
      }
    }, () -> "decoders took more than 10 s on " + input.length + " bytes (a hang)");
  }

  @Property(tries = 300)
  void randomBytesOnlyEverGiveTheTypedError(@ForAll @Size(max = 300) final byte[] input) {
    feed(input);
  }

  @Property(tries = 500)
  void randomBodiesBehindAValidHeadOnlyEverGiveTheTypedError(
      @ForAll("commands") final int command, @ForAll @Size(max = 400) final byte[] body) {
    final byte[] frame = new byte[5 + body.length];
    frame[0] = 0x5A;
    frame[1] = 0x4D;
    frame[2] = 1;
    frame[3] = (byte) command;
    System.arraycopy(body, 0, frame, 5, body.length);
    feed(frame);
  }

  @Property(tries = 1000)
  void mutatedValidFramesOnlyEverGiveTheTypedError(@ForAll("validFrames") final byte[] valid,
      @ForAll @IntRange(max = 4) final int mutation, @ForAll @IntRange(max = 10_000) final int where,
      @ForAll final byte value, @ForAll @Size(min = 1, max = 40) final byte[] insert) {
    final int at = where % (valid.length + 1);
    final byte[] mutated = switch (mutation) {
      case 0 -> Arrays.copyOf(valid, at); // truncate
      case 1 -> { // overwrite one byte
        final byte[] m = valid.clone();
        m[Math.min(at, m.length - 1)] = value;
        yield m;
      }
      case 2 -> { // insert bytes
        final byte[] m = new byte[valid.length + insert.length];
        System.arraycopy(valid, 0, m, 0, at);
        System.arraycopy(insert, 0, m, at, insert.length);
        System.arraycopy(valid, at, m, at + insert.length, valid.length - at);
        yield m;
      }
      case 3 -> { // delete a range
        final int end = Math.min(valid.length, at + insert.length);
        final byte[] m = new byte[valid.length - (end - at)];
        System.arraycopy(valid, 0, m, 0, at);
        System.arraycopy(valid, end, m, at, valid.length - end);
        yield m;
      }
      default -> { // forge a huge length in a length byte: set 4 bytes to 0xFF
        final byte[] m = valid.clone();
        for (int i = Math.min(at, m.length - 1); i < Math.min(m.length, at + 4); i++) {
          m[i] = (byte) 0xFF;
        }
        yield m;
      }
    };
    feed(mutated);
  }

  @Property(tries = 300)
  void validMessagesRoundTrip(@ForAll("userSpotCreates") final UserSpotCreate create,
      @ForAll("actorCreates") final ActorCreate actor, @ForAll("closes") final UserSpotClose close,
      @ForAll("replies") final Reply reply) {
    assertThat(CreationCodec.decodeUserSpotCreate(CreationCodec.encode(create))).isEqualTo(create);
    assertThat(CreationCodec.decodeActorCreate(CreationCodec.encode(actor))).isEqualTo(actor);
    assertThat(UserSpotCloseCodec.decode(UserSpotCloseCodec.encode(close))).isEqualTo(close);
    final OperationKind kind = reply.tail() instanceof ReplyTail.Empty ? OperationKind.NONE : reply.tail().kind();
    assertThat(ReplyCodec.decode(ReplyCodec.encode(reply), kind)).isEqualTo(reply);
  }

  @Property(tries = 200)
  void authorityKeysRoundTripAndRandomTextOnlyGivesTheTypedError(@ForAll("texts") final String id,
      @ForAll @Size(max = 60) final String junk) {
    final AuthorityKey key = new AuthorityKey(AuthorityKey.Kind.SPOT, id);
    assertThat(AuthorityKey.parse(key.encoded())).isEqualTo(key);
    for (String s : new String[] {junk, "zla1:a:" + junk, "zla1:s:3:" + junk}) {
      try {
        assertThat(AuthorityKey.parse(s).encoded()).isEqualTo(s);
      } catch (WireFormatException expected) {
        assertThat(expected.error()).isNotNull();
      }
    }
  }

  // ---- generators ----

  @Provide
  Arbitrary<Integer> commands() {
    return Arbitraries.of(Commands.REPLY, Commands.USER_SPOT_CREATE, Commands.USER_SPOT_CLOSE,
        Commands.ACTOR_CREATE, Commands.APPLICATION_MESSAGE, Commands.ACTOR_DESTROY);
  }

  @Provide
  Arbitrary<String> texts() {
    return Arbitraries.strings().withCharRange('\u0001', '\uD7FF').ofMinLength(1).ofMaxLength(20);
  }

  private Arbitrary<Long> positive() {
    return Arbitraries.oneOf(Arbitraries.longs().between(1, 300), Arbitraries.longs().between(1, Long.MAX_VALUE));
  }

  private Arbitrary<Rid> rids() {
    return Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(12).map(Rid::of);
  }

  private Arbitrary<OperationId> operations() {
    return Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).filter((h, l) -> h != 0 || l != 0)
        .as(OperationId::new);
  }

  private Arbitrary<ReservationFence> reservations() {
    return Combinators.combine(texts(), texts(), positive(), positive(), rids(), positive(), texts(), positive())
        .flatAs((id, version, og, aog, rid, gen, owner, lease) -> Arbitraries.longs().between(1, 0xFFFF_FFFFL)
            .map(delta -> new ReservationFence(id, version, og, aog, rid, gen, owner, lease, delta)));
  }

  @Provide
  Arbitrary<UserSpotCreate> userSpotCreates() {
    return Combinators.combine(positive(), operations(), rids(), positive(), texts(), texts(), reservations(),
        positive()).as(UserSpotCreate::new);
  }

  @Provide
  Arbitrary<ActorCreate> actorCreates() {
    return Combinators.combine(positive(), operations(), rids(), positive(), texts(), texts(), reservations(),
        positive()).as(ActorCreate::new);
  }

  private Arbitrary<WireSpotRef> spots() {
    return Combinators.combine(texts(), positive()).as(WireSpotRef::new);
  }

  @Provide
  Arbitrary<UserSpotClose> closes() {
    final Arbitrary<UserSpotCloseFence> fences = Combinators.combine(spots(), rids(), positive(), positive(),
        texts()).as(UserSpotCloseFence::new);
    return Combinators.combine(positive(), operations(), rids(), positive(), fences, positive())
        .as(UserSpotClose::new);
  }

  @Provide
  Arbitrary<Reply> replies() {
    final Arbitrary<ReplyTail> tails = Arbitraries.oneOf(
        Combinators.combine(Arbitraries.of(CreateResult.class), spots()).as(ReplyTail.UserSpotCreated::new),
        Arbitraries.of(true, false).map(ReplyTail.UserSpotClosed::new),
        Combinators.combine(Arbitraries.of(CreateResult.EXISTING, CreateResult.CREATED), texts(), positive())
            .as((r, id, g) -> new ReplyTail.ActorCreated(r, new WireActorRef(id, g))),
        Arbitraries.just(new ReplyTail.ActorCreated(CreateResult.REJECTED, null)),
        Combinators.combine(spots(), positive(), Arbitraries.longs().between(0, 67_108_864L))
            .as(ReplyTail.ActorJoinAccepted::new),
        spots().injectNull(0.5).map(ReplyTail.ActorJoinRejected::new),
        Arbitraries.just(ReplyTail.Empty.INSTANCE));
    final Arbitrary<ApplicationPayload> payloads = Combinators.combine(texts(), texts(),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(64)).as(ApplicationPayload::new).injectNull(0.5);
    final Arbitrary<Reply> ok = Combinators.combine(positive(), tails, payloads)
        .as((c, t, p) -> new Reply(c, TerminalResult.OK, FailureCode.NONE, t, p));
    final Arbitrary<Reply> failed = Combinators.combine(positive(), Arbitraries.of(TerminalResult.class)
        .filter(r -> r != TerminalResult.OK), Arbitraries.of(FailureCode.class))
        .as(Reply::of);
    return Arbitraries.oneOf(ok, failed);
  }

  @Provide
  Arbitrary<byte[]> validFrames() {
    return Arbitraries.oneOf(
        userSpotCreates().map(CreationCodec::encode),
        actorCreates().map(CreationCodec::encode),
        closes().map(UserSpotCloseCodec::encode),
        replies().map(ReplyCodec::encode),
        applicationMessages().map(ApplicationMessageCodec::encode),
        destroys().map(ActorDestroy::encode));
  }

  @Provide
  Arbitrary<ApplicationMessage> applicationMessages() {
    final Arbitrary<ApplicationPayload> payloads = Combinators.combine(texts(), texts(),
        Arbitraries.bytes().array(byte[].class).ofMaxSize(64)).as(ApplicationPayload::new);
    return Combinators.combine(Arbitraries.of(ApplicationMessage.TargetKind.class), texts(), texts(),
        Arbitraries.longs().between(0, Long.MAX_VALUE), positive(), Arbitraries.of(true, false),
        Arbitraries.integers().between(0, 255), payloads)
        .as((kind, id, type, generation, deadline, request, hops, payload) -> new ApplicationMessage(
            request ? deadline : 0, kind, id, generation, kind == ApplicationMessage.TargetKind.INSTANCE_SPOT
            ? type : null, request ? deadline : 0, hops, payload));
  }

  @Provide
  Arbitrary<ActorDestroy> destroys() {
    return Combinators.combine(positive(), texts(), positive(), rids(), positive(), positive())
        .as((c, id, g, rid, aog, d) -> new ActorDestroy(c, new WireActorRef(id, g), rid, aog, d));
  }

  @Property(tries = 300)
  void spotkitCommandsRoundTrip(@ForAll("applicationMessages") final ApplicationMessage message,
      @ForAll("destroys") final ActorDestroy destroy) {
    assertThat(ApplicationMessageCodec.decode(ApplicationMessageCodec.encode(message))).isEqualTo(message);
    assertThat(ActorDestroy.decode(destroy.encode())).isEqualTo(destroy);
  }
}
