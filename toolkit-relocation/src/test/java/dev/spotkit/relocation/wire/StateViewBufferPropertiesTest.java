package dev.spotkit.relocation.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link RelocationCodec#decodeStateView(ByteBuffer)} (a command 52 read in place in a transport's buffer, issue
 * 16) against {@link RelocationCodec#decodeStateView(byte[])}: for every frame, mutated frame and strict prefix, in
 * a direct buffer between other bytes, both give the same view or throw the same error (same message), the buffer's
 * position and limit are not moved, and a valid frame's chunk is read in place (a write to the buffer shows through
 * the view) and copied once by the assembler.
 */
class StateViewBufferPropertiesTest {

  @Provide
  Arbitrary<RelocationFrame.State> states() {
    return Combinators.combine(WireArbitraries.identity(), WireArbitraries.role(), WireArbitraries.object(),
        WireArbitraries.u32(), Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(300))
        .as(RelocationFrame.State::new);
  }

  /** {@code frame} in a direct buffer, {@code pad} other bytes before and after it, positioned on it. */
  private static ByteBuffer direct(final byte[] frame, final int pad) {
    final ByteBuffer b = ByteBuffer.allocateDirect(frame.length + 2 * pad);
    for (int i = 0; i < b.capacity(); i++) {
      b.put(i, (byte) 0x5A);
    }
    b.put(pad, frame);
    return b.position(pad).limit(pad + frame.length);
  }

  private static void sameAsArrayDecode(final byte[] frame, final int pad) {
    final ByteBuffer buffer = direct(frame, pad);
    Object fromArray;
    Object fromBuffer;
    try {
      fromArray = RelocationCodec.decodeStateView(frame);
    } catch (WireFormatException e) {
      fromArray = e.getMessage();
    }
    try {
      fromBuffer = RelocationCodec.decodeStateView(buffer);
    } catch (WireFormatException e) {
      fromBuffer = e.getMessage();
    }
    assertThat(buffer.position()).isEqualTo(pad);
    assertThat(buffer.limit()).isEqualTo(pad + frame.length);
    if (fromArray instanceof String message) {
      assertThat(fromBuffer).isEqualTo(message);
      return;
    }
    final StateView a = (StateView) fromArray;
    assertThat(fromBuffer).isInstanceOfSatisfying(StateView.class, b -> {
      assertThat(b.toState()).isEqualTo(a.toState());
      assertThat(b.chunkLength()).isEqualTo(a.chunkLength());
    });
  }

  @Property(tries = 400)
  void aBufferDecodeIsTheArrayDecode(@ForAll("states") final RelocationFrame.State state,
      @ForAll @IntRange(max = 9) final int pad, @ForAll final int kind, @ForAll final int where,
      @ForAll final byte value) {
    final byte[] frame = RelocationCodec.encode(state);
    sameAsArrayDecode(frame, pad);
    sameAsArrayDecode(WireArbitraries.mutate(frame, kind, where, value), pad);
    final byte[] longer = Arrays.copyOf(frame, frame.length + 1);
    sameAsArrayDecode(longer, pad);
  }

  @Property(tries = 60)
  void everyStrictPrefixFailsAsInTheArrayDecode(@ForAll("states") final RelocationFrame.State state) {
    final byte[] frame = RelocationCodec.encode(state);
    for (int cut = 0; cut < frame.length; cut++) {
      sameAsArrayDecode(Arrays.copyOf(frame, cut), 3);
    }
  }

  @Property(tries = 100)
  void theChunkIsReadInPlaceAndTheAssemblerCopiesItOnce(@ForAll("states") final RelocationFrame.State any) {
    final RelocationFrame.State state = new RelocationFrame.State(any.identity(), any.senderRole(), any.object(), 0,
        any.chunkUnsafe()); // ordinal 0 of a one-chunk payload
    final byte[] frame = RelocationCodec.encode(state);
    final ByteBuffer buffer = direct(frame, 4);
    final StateView view = RelocationCodec.decodeStateView(buffer);
    final byte[] chunk = state.chunkUnsafe();
    final int at = 4 + frame.length - chunk.length;
    buffer.put(at, (byte) (chunk[0] ^ 0x01));
    assertThat(view.chunk()[0]).as("the view reads the buffer").isEqualTo((byte) (chunk[0] ^ 0x01));
    buffer.put(at, chunk[0]);

    final ChunkAssembler assembly = ChunkAssembler.start(new RelocationFrame.Prepare(state.identity(),
        new TargetFence(Rid.ofUtf8("node-b"), 1, "owner-b", 1), Role.SOURCE, state.object(), Rid.ofUtf8("node-a"),
        1, chunk.length, 1, ChunkPlan.crc32c(chunk), 1), 7, 1 << 20);
    final ChunkOutcome outcome = assembly.onChunk(view, 7);
    Arrays.fill(frame, (byte) 0);
    for (int i = 0; i < buffer.limit(); i++) {
      buffer.put(i, (byte) 0); // the receive buffer is reused: the payload must not change
    }
    assertThat(outcome).isInstanceOfSatisfying(ChunkOutcome.Complete.class,
        c -> assertThat(c.payload()).isEqualTo(chunk));
  }
}
