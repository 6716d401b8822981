package dev.spotkit.relocation.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.relocation.Spec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeSet;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** Chunk plan and assembler (spec 001 sections 4.2, 4.3, 9). */
class ChunkAssemblerTest {

  static final long CONNECTION = 7;
  static final RelocationIdentity ID = GoldenVectorsTest.IDENTITY;
  static final ObjectIdentity OBJECT = GoldenVectorsTest.SPOT;

  static RelocationFrame.Prepare manifest(final RelocationIdentity id, final long total, final long count,
      final long crc) {
    return new RelocationFrame.Prepare(id, GoldenVectorsTest.TARGET, Role.SOURCE, OBJECT, Rid.ofUtf8("node-a"), 11,
        total, count, crc, 1);
  }

  /** Splits at the given cut points (any byte), giving one command 52 per piece, in ordinal order. */
  static List<RelocationFrame.State> split(final RelocationIdentity id, final byte[] payload, final TreeSet<Integer> cuts) {
    final List<RelocationFrame.State> out = new ArrayList<>();
    int from = 0;
    final List<Integer> ends = new ArrayList<>(cuts);
    ends.add(payload.length);
    for (int end : ends) {
      if (end > from) {
        out.add(new RelocationFrame.State(id, Role.SOURCE, OBJECT, out.size(),
            java.util.Arrays.copyOfRange(payload, from, end)));
        from = end;
      }
    }
    return out;
  }

  static RelocationIdentity other(final int which) {
    return switch (which % 3) {
      case 0 -> new RelocationIdentity(new RelocationId(4, 6), ID.targetAttemptGeneration(), ID.coordinatorFence());
      case 1 -> new RelocationIdentity(ID.relocationId(), 7, ID.coordinatorFence());
      default -> new RelocationIdentity(ID.relocationId(), ID.targetAttemptGeneration(),
          new CoordinatorFence("coordinator", 7, Rid.ofUtf8("node-a"), 11, "store-4"));
    };
  }

  @Provide
  Arbitrary<byte[]> payloads() {
    return net.jqwik.api.Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(3000);
  }

  @Spec("REL-08")
  @Property(tries = 300)
  void anyChunkingAndAnyInterleavingWithOtherIdentitiesReassemblesThePayloadExactlyOnce(
      @ForAll("payloads") final byte[] payload, @ForAll @Size(max = 40) final List<@IntRange(min = 1, max = 2999)
      Integer> cutPoints, @ForAll final Random random) {
    final TreeSet<Integer> cuts = new TreeSet<>();
    cutPoints.stream().filter(c -> c < payload.length).forEach(cuts::add);
    final List<RelocationFrame.State> own = split(ID, payload, cuts);
    final ChunkAssembler assembler = ChunkAssembler.start(manifest(ID, payload.length, own.size(),
        ChunkPlan.crc32c(payload)), CONNECTION, payload.length);
    final List<Object[]> arrivals = new ArrayList<>();
    for (RelocationFrame.State s : own) {
      arrivals.add(new Object[] {s, CONNECTION});
      if (random.nextInt(4) == 0) {
        arrivals.add(new Object[] {s, CONNECTION}); // an identical restatement
      }
      final RelocationFrame.State foreign = new RelocationFrame.State(other(random.nextInt(3)), Role.SOURCE, OBJECT,
          s.chunkOrdinal(), new byte[] {9, 9, 9});
      arrivals.add(new Object[] {foreign, CONNECTION});
      arrivals.add(new Object[] {s, CONNECTION + 1}); // same identity, another connection
    }
    Collections.shuffle(arrivals, random);

    final List<byte[]> completions = new ArrayList<>();
    int discardedForeign = 0;
    for (Object[] a : arrivals) {
      final RelocationFrame.State s = (RelocationFrame.State) a[0];
      final long connection = (Long) a[1];
      final boolean ours = s.identity().equals(ID) && connection == CONNECTION;
      final ChunkOutcome outcome = assembler.onChunk(s, connection);
      switch (outcome) {
        case ChunkOutcome.Complete c -> completions.add(c.payload());
        case ChunkOutcome.Discarded d -> {
          if (!ours) {
            discardedForeign++;
            assertThat(d.reason()).isEqualTo(s.identity().equals(ID)
                ? ChunkOutcome.DiscardReason.OTHER_CONNECTION : ChunkOutcome.DiscardReason.OTHER_RELOCATION_IDENTITY);
          } else {
            assertThat(d.reason()).isEqualTo(ChunkOutcome.DiscardReason.ASSEMBLY_CLOSED);
            assertThat(completions).hasSize(1);
          }
        }
        case ChunkOutcome.Accepted acc -> assertThat(ours).isTrue();
        case ChunkOutcome.Duplicate dup -> assertThat(ours).isTrue();
        case ChunkOutcome.Failed f -> throw new AssertionError("unexpected failure " + f.error().getMessage());
      }
    }
    assertThat(completions).hasSize(1);
    assertThat(completions.get(0)).isEqualTo(payload);
    assertThat(discardedForeign).isEqualTo(2 * own.size());
    assertThat(assembler.isComplete()).isTrue();
  }

  @Spec("REL-10")
  @Property(tries = 300)
  void aMissingOrCorruptedChunkNeverYieldsAPayload(@ForAll("payloads") final byte[] payload,
      @ForAll @IntRange(min = 1, max = 64) final int chunkSize, @ForAll final int victim, @ForAll final Random random,
      @ForAll final boolean corruptInsteadOfDrop) {
    final ChunkPlan plan = ChunkPlan.of(payload, chunkSize);
    final ChunkAssembler assembler = ChunkAssembler.start(manifest(ID, plan.totalLength(), plan.chunkCount(),
        plan.checksumCrc32c()), CONNECTION, 1 << 20);
    final long lost = Math.floorMod(victim, plan.chunkCount());
    final List<RelocationFrame.State> sent = new ArrayList<>();
    for (long i = 0; i < plan.chunkCount(); i++) {
      if (i != lost) {
        sent.add(plan.stateFrame(ID, OBJECT, i));
      } else if (corruptInsteadOfDrop) {
        final byte[] bad = plan.chunk(i);
        bad[random.nextInt(bad.length)] ^= (byte) (1 + random.nextInt(255));
        sent.add(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, i, bad));
      }
    }
    Collections.shuffle(sent, random);
    ChunkOutcome last = null;
    for (RelocationFrame.State s : sent) {
      last = assembler.onChunk(s, CONNECTION);
      assertThat(last).isNotInstanceOf(ChunkOutcome.Complete.class);
    }
    assertThat(assembler.isComplete()).isFalse();
    if (corruptInsteadOfDrop) {
      assertThat(last).isInstanceOfSatisfying(ChunkOutcome.Failed.class,
          f -> assertThat(f.error().error()).isEqualTo(WireError.CHECKSUM_MISMATCH));
      assertThat(assembler.isFailed()).isTrue();
      assertThat(assembler.onChunk(plan.stateFrame(ID, OBJECT, lost), CONNECTION))
          .isInstanceOfSatisfying(ChunkOutcome.Discarded.class, d -> assertThat(d.reason())
              .isEqualTo(ChunkOutcome.DiscardReason.ASSEMBLY_CLOSED));
    } else {
      assertThat(assembler.receivedChunks()).isEqualTo(plan.chunkCount() - 1);
    }
  }

  @Property(tries = 200)
  void aConflictingRestatementFailsExplicitly(@ForAll("payloads") final byte[] payload,
      @ForAll @IntRange(min = 1, max = 64) final int chunkSize, @ForAll final int which, @ForAll final byte flip) {
    final ChunkPlan plan = ChunkPlan.of(payload, chunkSize);
    final ChunkAssembler assembler = ChunkAssembler.start(manifest(ID, plan.totalLength(), plan.chunkCount(),
        plan.checksumCrc32c()), CONNECTION, 1 << 20);
    final long ordinal = Math.floorMod(which, plan.chunkCount());
    final byte[] changed = plan.chunk(ordinal);
    changed[0] = (byte) (changed[0] ^ (flip == 0 ? 1 : flip));
    final ChunkOutcome first = assembler.onChunk(plan.stateFrame(ID, OBJECT, ordinal), CONNECTION);
    final ChunkOutcome again = assembler.onChunk(plan.stateFrame(ID, OBJECT, ordinal), CONNECTION);
    final ChunkOutcome conflict = assembler.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, ordinal,
        changed), CONNECTION);

    if (plan.chunkCount() == 1) {
      assertThat(first).isInstanceOf(ChunkOutcome.Complete.class);
      assertThat(conflict).isInstanceOf(ChunkOutcome.Discarded.class);
      return;
    }
    assertThat(first).isInstanceOf(ChunkOutcome.Accepted.class);
    assertThat(again).isEqualTo(new ChunkOutcome.Duplicate(ordinal));
    assertThat(conflict).isInstanceOfSatisfying(ChunkOutcome.Failed.class,
        f -> assertThat(f.error().error()).isEqualTo(WireError.CHUNK_CONFLICT));
    for (long i = 0; i < plan.chunkCount(); i++) {
      assertThat(assembler.onChunk(plan.stateFrame(ID, OBJECT, i), CONNECTION)).isInstanceOf(
          ChunkOutcome.Discarded.class);
    }
    assertThat(assembler.isFailed()).isTrue();
  }

  @Test
  void outOfRangeOrdinalsTotalsBeyondTheManifestAndShortTotalsFail() {
    final byte[] payload = {1, 2, 3, 4, 5, 6};
    final long crc = ChunkPlan.crc32c(payload);
    final ChunkAssembler range = ChunkAssembler.start(manifest(ID, 6, 2, crc), CONNECTION, 100);
    assertThat(range.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 2, new byte[] {1}), CONNECTION))
        .isInstanceOfSatisfying(ChunkOutcome.Failed.class, f -> assertThat(f.error()).hasMessage(
            "assembly: chunk-out-of-range chunkOrdinal at offset -1: value 2, expected 0..1"));

    final ChunkAssembler beyond = ChunkAssembler.start(manifest(ID, 6, 2, crc), CONNECTION, 100);
    assertThat(beyond.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 0, new byte[5]), CONNECTION))
        .isInstanceOf(ChunkOutcome.Accepted.class);
    assertThat(beyond.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 1, new byte[2]), CONNECTION))
        .isInstanceOfSatisfying(ChunkOutcome.Failed.class,
            f -> assertThat(f.error().error()).isEqualTo(WireError.CHUNK_BEYOND_TOTAL));
    assertThat(beyond.receivedBytes()).isZero();

    final ChunkAssembler shortTotal = ChunkAssembler.start(manifest(ID, 6, 2, crc), CONNECTION, 100);
    shortTotal.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 0, new byte[] {1, 2}), CONNECTION);
    assertThat(shortTotal.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 1, new byte[] {3}), CONNECTION))
        .isInstanceOfSatisfying(ChunkOutcome.Failed.class,
            f -> assertThat(f.error().error()).isEqualTo(WireError.LENGTH_MISMATCH));

    final ChunkAssembler otherObject = ChunkAssembler.start(manifest(ID, 6, 2, crc), CONNECTION, 100);
    assertThat(otherObject.onChunk(new RelocationFrame.State(ID, Role.SOURCE, new ObjectIdentity.Actor("a", 1, 1), 0,
        new byte[] {1}), CONNECTION)).isInstanceOfSatisfying(ChunkOutcome.Failed.class,
            f -> assertThat(f.error().error()).isEqualTo(WireError.MANIFEST_CONFLICT));
  }

  @Test
  void aManifestBeyondTheReceiverLimitIsRefusedBeforeAnyAllocation() {
    assertThatThrownBy(() -> ChunkAssembler.start(manifest(ID, Long.MAX_VALUE, 2, 0), CONNECTION, 1 << 20))
        .isInstanceOfSatisfying(WireFormatException.class, e -> {
          assertThat(e.error()).isEqualTo(WireError.OVERSIZED);
          assertThat(e.field()).isEqualTo("payloadTotalLength");
        });
    assertThatThrownBy(() -> ChunkAssembler.start(manifest(ID, 10, 11, 0), CONNECTION, 100))
        .isInstanceOfSatisfying(WireFormatException.class,
            e -> assertThat(e.error()).isEqualTo(WireError.INVALID_FIELD));
    assertThatThrownBy(() -> ChunkAssembler.start(manifest(ID, 10, 0, 0), CONNECTION, 100))
        .isInstanceOf(WireFormatException.class);
    assertThatThrownBy(() -> ChunkAssembler.start(manifest(ID, 0, 1, 0), CONNECTION, 100))
        .isInstanceOf(WireFormatException.class);
  }

  @Spec("REL-09")
  @Test
  void aRestatedPrepareReusesProgressAndADifferentLengthOrChecksumConflictsWithoutOverwriting() {
    final byte[] payload = {1, 2, 3, 4, 5, 6};
    final RelocationFrame.Prepare first = manifest(ID, 6, 2, ChunkPlan.crc32c(payload));
    final ChunkAssembler assembler = ChunkAssembler.start(first, CONNECTION, 100);
    assembler.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 0, new byte[] {1, 2, 3}), CONNECTION);

    assertThat(assembler.onPrepare(first, CONNECTION)).isEqualTo(new PrepareOutcome.Restated());
    assertThat(assembler.receivedChunks()).isEqualTo(1);
    assertThat(assembler.onPrepare(manifest(other(0), 7, 2, 1), CONNECTION))
        .isEqualTo(new PrepareOutcome.Unrelated(other(0)));
    assertThat(assembler.onPrepare(first, CONNECTION + 1)).isEqualTo(new PrepareOutcome.Unrelated(ID));
    assertThat(assembler.receivedChunks()).isEqualTo(1);
    assertThat(assembler.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 1, new byte[] {4, 5, 6}),
        CONNECTION)).isInstanceOfSatisfying(ChunkOutcome.Complete.class, c -> assertThat(c.payload()).isEqualTo(payload));

    for (RelocationFrame.Prepare conflicting : List.of(manifest(ID, 7, 2, ChunkPlan.crc32c(payload)),
        manifest(ID, 6, 2, ChunkPlan.crc32c(payload) ^ 1))) {
      final ChunkAssembler a = ChunkAssembler.start(first, CONNECTION, 100);
      a.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 0, new byte[] {1, 2, 3}), CONNECTION);
      assertThat(a.onPrepare(conflicting, CONNECTION)).isInstanceOfSatisfying(PrepareOutcome.Conflict.class,
          c -> assertThat(c.error().error()).isEqualTo(WireError.MANIFEST_CONFLICT));
      assertThat(a.manifest()).isEqualTo(first);
      assertThat(a.isFailed()).isTrue();
      assertThat(a.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 1, new byte[] {4, 5, 6}), CONNECTION))
          .isInstanceOf(ChunkOutcome.Discarded.class);
    }
  }

  @Spec("REL-08")
  @Test
  void aPrepareOrChunkOfAnotherRelocationIdentityIsDiscardedAndNotLinked() {
    final byte[] payload = {1, 2, 3};
    final ChunkAssembler assembler = ChunkAssembler.start(manifest(ID, 3, 1, ChunkPlan.crc32c(payload)),
        CONNECTION, 100);
    for (int i = 0; i < 3; i++) {
      assertThat(assembler.onPrepare(manifest(other(i), 3, 1, 5), CONNECTION)).isInstanceOf(
          PrepareOutcome.Unrelated.class);
      assertThat(assembler.onChunk(new RelocationFrame.State(other(i), Role.SOURCE, OBJECT, 0, payload), CONNECTION))
          .isEqualTo(new ChunkOutcome.Discarded(ChunkOutcome.DiscardReason.OTHER_RELOCATION_IDENTITY, other(i), 0));
    }
    assertThat(assembler.receivedChunks()).isZero();
    assertThat(assembler.isComplete()).isFalse();
    assertThat(assembler.onChunk(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 0, payload), CONNECTION))
        .isInstanceOf(ChunkOutcome.Complete.class);
  }

  @Test
  void chunkSizeIsTheSmallestOfSettingAdvertisedLimitAndBudgetLeft() {
    assertThat(ChunkPlan.chunkSize(ChunkPlan.DEFAULT_CHUNK_LIMIT_BYTES, OptionalLong.empty(), OptionalLong.empty()))
        .isEqualTo(32 * 1024);
    assertThat(ChunkPlan.chunkSize(ChunkPlan.DEFAULT_CHUNK_LIMIT_BYTES, OptionalLong.of(1 << 20),
        OptionalLong.empty())).isEqualTo(256 * 1024);
    assertThat(ChunkPlan.chunkSize(ChunkPlan.DEFAULT_CHUNK_LIMIT_BYTES, OptionalLong.of(100_000),
        OptionalLong.of(1 << 24))).isEqualTo(100_000);
    assertThat(ChunkPlan.chunkSize(ChunkPlan.DEFAULT_CHUNK_LIMIT_BYTES, OptionalLong.of(1 << 20),
        OptionalLong.of(4096))).isEqualTo(4096);
    assertThat(ChunkPlan.chunkSize(1000, OptionalLong.empty(), OptionalLong.empty())).isEqualTo(1000);
    assertThatThrownBy(() -> ChunkPlan.chunkSize(1000, OptionalLong.of(0), OptionalLong.empty()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Property(tries = 200)
  void aPlannedEnvelopeTravelsThroughCommand52AndDecodesUnchanged(
      @ForAll("envelopes") final RelocationEnvelope envelope, @ForAll @IntRange(min = 1, max = 300) final int limit,
      @ForAll final Random random) {
    final byte[] stream = RelocationEnvelopeCodec.encode(envelope);
    final ChunkPlan plan = ChunkPlan.of(stream, ChunkPlan.chunkSize(limit, OptionalLong.of(limit + 7),
        OptionalLong.empty()));
    assertThat(plan.chunkCount()).isEqualTo((stream.length + limit - 1) / limit);
    final RelocationFrame.Prepare prepare = (RelocationFrame.Prepare) RelocationCodec.decode(RelocationCodec.encode(
        manifest(ID, plan.totalLength(), plan.chunkCount(), plan.checksumCrc32c())));
    final ChunkAssembler assembler = ChunkAssembler.start(prepare, CONNECTION, 1 << 20);
    final List<Long> order = new ArrayList<>();
    for (long i = 0; i < plan.chunkCount(); i++) {
      order.add(i);
    }
    Collections.shuffle(order, random);
    byte[] result = null;
    for (long i : order) {
      final RelocationFrame.State onWire = (RelocationFrame.State) RelocationCodec.decode(RelocationCodec.encode(
          plan.stateFrame(ID, OBJECT, i)));
      assertThat(onWire.chunk().length).isLessThanOrEqualTo(limit);
      if (assembler.onChunk(onWire, CONNECTION) instanceof ChunkOutcome.Complete c) {
        result = c.payload();
      }
    }
    assertThat(result).isEqualTo(stream);
    assertThat(RelocationEnvelopeCodec.decode(result)).isEqualTo(envelope);
  }

  @Spec("REL-06")
  @Property(tries = 200)
  void theZeroCopyPathSendsTheSameBytesAndAssemblesFromFrameViews(
      @ForAll("envelopes") final RelocationEnvelope envelope, @ForAll @IntRange(min = 1, max = 300) final int limit,
      @ForAll final Random random) {
    final byte[] stream = RelocationEnvelopeCodec.encode(envelope);
    assertThat(RelocationEnvelopeCodec.encodedLength(envelope)).isEqualTo(stream.length);
    final ChunkPlan copied = ChunkPlan.of(stream, limit);
    final ChunkPlan plan = ChunkPlan.adopt(stream, limit);
    assertThat(plan.checksumCrc32c()).isEqualTo(copied.checksumCrc32c());
    final ChunkPlan encoded = ChunkPlan.encode(envelope, limit);
    assertThat(encoded.checksumCrc32c()).isEqualTo(plan.checksumCrc32c());
    assertThat(encoded.chunkCount()).isEqualTo(plan.chunkCount());
    assertThat(encoded.totalLength()).isEqualTo(plan.totalLength());
    final ChunkAssembler assembler = ChunkAssembler.start(manifest(ID, plan.totalLength(), plan.chunkCount(),
        plan.checksumCrc32c()), CONNECTION, stream.length);
    final List<byte[]> frames = new ArrayList<>();
    for (long i = 0; i < plan.chunkCount(); i++) {
      final StateFrameParts parts = plan.stateFrameParts(ID, OBJECT, i);
      assertThat(parts.stream()).isSameAs(stream);
      final byte[] joined = new byte[parts.frameLength()];
      System.arraycopy(parts.head(), 0, joined, 0, parts.head().length);
      System.arraycopy(parts.stream(), parts.offset(), joined, parts.head().length, parts.length());
      assertThat(joined).as("chunk %d", i).isEqualTo(RelocationCodec.encode(copied.stateFrame(ID, OBJECT, i)));
      frames.add(joined);
    }
    if (random.nextBoolean()) {
      Collections.shuffle(frames, random);
    }
    byte[] result = null;
    for (byte[] frame : frames) {
      assertThat(RelocationCodec.commandOf(frame)).isEqualTo(RelocationFrame.State.COMMAND);
      final StateView view = RelocationCodec.decodeStateView(frame);
      assertThat(view.toState()).isEqualTo(RelocationCodec.decode(frame));
      final ChunkOutcome outcome = assembler.onChunk(view, CONNECTION);
      java.util.Arrays.fill(frame, (byte) 0x55); // the assembler copied at once: reusing the frame changes nothing
      if (outcome instanceof ChunkOutcome.Complete c) {
        result = c.payload();
      }
    }
    assertThat(result).isEqualTo(stream);
    final RelocationEnvelope owned = RelocationEnvelopeCodec.decodeOwned(result, Long.MAX_VALUE, Integer.MAX_VALUE);
    assertThat(owned).isEqualTo(envelope).hasSameHashCodeAs(envelope);
    for (int i = 0; i < owned.applicationStates().size(); i++) {
      final EnvelopeEntries.ApplicationState s = owned.applicationStates().get(i);
      final byte[] expected = envelope.applicationStates().get(i).state();
      assertThat(s.state()).isEqualTo(expected);
      if (expected == null) {
        assertThat(s.stateBuffer()).isNull();
        assertThat(s.hasState()).isFalse();
      } else {
        assertThat(s.stateBuffer().isReadOnly()).isTrue();
        assertThat(s.stateBuffer()).isEqualTo(java.nio.ByteBuffer.wrap(expected));
        assertThat(s.stateLength()).isEqualTo(expected.length);
      }
    }
    assertThat(RelocationEnvelopeCodec.encode(owned)).isEqualTo(result);
  }

  @Test
  void encodingWithTheChecksumFusedGivesTheSameStreamAndCrcForLargeStatesAndRecords() {
    final java.util.SplittableRandom random = new java.util.SplittableRandom(3);
    for (int size : new int[] {0, 1, 65_535, 65_536, 65_537, 300_001}) {
      final byte[] state = new byte[size];
      random.nextBytes(state);
      final byte[] body = new byte[size + 5]; // a large record payload: its length field is patched afterwards
      random.nextBytes(body);
      final FrozenRecord record = new FrozenRecord(new RecordSource.Node(Rid.ofUtf8("n"), 1, "src", 6), null,
          new OperationId(0, 42), 3, 99, new RecordBody.SpotRequest(new TargetSpot("room", 1, Rid.ofUtf8("m"), 2, 7,
          1), new ApplicationPayload("P", "application/json", body)));
      for (List<EnvelopeEntries.SavedWork> work : List.of(List.<EnvelopeEntries.SavedWork>of(),
          List.of(new EnvelopeEntries.SavedWork(1, 1, record)))) {
        final RelocationEnvelope envelope = new RelocationEnvelope(new RelocationId(1, 2), OBJECT, 3,
            List.of(new EnvelopeEntries.ApplicationState(1, state), new EnvelopeEntries.ApplicationState(2, state)),
            work, List.of(), List.of());
        final byte[] stream = RelocationEnvelopeCodec.encode(envelope);
        final ChunkPlan plan = ChunkPlan.encode(envelope, 100_000);
        assertThat(plan.checksumCrc32c()).as("size %d, %d records", size, work.size())
            .isEqualTo(ChunkPlan.crc32c(stream));
        assertThat(plan.totalLength()).isEqualTo(stream.length);
        for (long i = 0; i < plan.chunkCount(); i++) {
          assertThat(plan.chunk(i)).isEqualTo(ChunkPlan.of(stream, 100_000).chunk(i));
        }
      }
    }
  }

  @Test
  void aViewOfAnotherCommandOrABadFrameIsRefusedLikeDecode() {
    final byte[] prepare = RelocationCodec.encode(manifest(ID, 10, 1, 0));
    assertThatThrownBy(() -> RelocationCodec.decodeStateView(prepare)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.UNEXPECTED_COMMAND));
    final byte[] state = RelocationCodec.encode(new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 3, new byte[] {1,
        2, 3}));
    final byte[] trailing = java.util.Arrays.copyOf(state, state.length + 1);
    assertThatThrownBy(() -> RelocationCodec.decodeStateView(trailing)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.TRAILING_BYTE));
    final byte[] truncated = java.util.Arrays.copyOf(state, state.length - 1);
    assertThatThrownBy(() -> RelocationCodec.decodeStateView(truncated)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.TRUNCATED_FIELD));
    final byte[] flagged = state.clone();
    flagged[4] = 1;
    assertThatThrownBy(() -> RelocationCodec.decodeStateView(flagged)).isInstanceOfSatisfying(
        WireFormatException.class, e -> assertThat(e.error()).isEqualTo(WireError.FORBIDDEN_FLAG));
    assertThat(RelocationCodec.commandOf(new byte[] {0x5A, 0x4D})).isEqualTo(-1);
  }

  @Provide
  Arbitrary<RelocationEnvelope> envelopes() {
    return WireArbitraries.envelope();
  }

  /**
   * A hostile manifest announcing 256 MiB, followed by one 16-byte chunk: the assembly's memory follows the
   * bytes received, not the announced total (a peer must send the bytes to make the receiver hold them).
   */
  @Test
  void aHugeAnnouncedTotalAllocatesOnlyWhatArrives() {
    final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    final long total = 256L << 20;
    final ChunkAssembler assembler = ChunkAssembler.start(manifest(ID, total, 2, 0), CONNECTION,
        Integer.MAX_VALUE - 8);
    final RelocationFrame.State first = new RelocationFrame.State(ID, Role.SOURCE, OBJECT, 0, new byte[16]);
    final long before = threads.getCurrentThreadAllocatedBytes();
    assertThat(assembler.onChunk(first, CONNECTION)).isInstanceOf(ChunkOutcome.Accepted.class);
    final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(allocated).as("bytes allocated for one 16-byte chunk").isLessThan(4L << 20);
  }
  /**
   * A 1 MiB stream in 256 KiB chunks (5 chunks, in order) is placed in one buffer of exactly its size, allocated
   * once: the assembly allocates about the payload, not the payload plus regrown copies (before: 64 KiB growing by
   * doubling, about 2.8 MiB and three copies of the bytes placed so far).
   */
  @Test
  void aPayloadOfAFewChunksIsAssembledInOneBufferOfItsSize() {
    final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    final byte[] payload = new byte[(1 << 20) + 3980];
    new Random(16).nextBytes(payload);
    final ChunkPlan plan = ChunkPlan.of(payload, ChunkPlan.DEFAULT_CHUNK_LIMIT_BYTES);
    final List<RelocationFrame.State> frames = new ArrayList<>();
    for (long i = 0; i < plan.chunkCount(); i++) {
      frames.add(plan.stateFrame(ID, OBJECT, i));
    }
    final ChunkAssembler assembler = ChunkAssembler.start(manifest(ID, plan.totalLength(), plan.chunkCount(),
        plan.checksumCrc32c()), CONNECTION, 1 << 24);
    ChunkOutcome last = null;
    final long before = threads.getCurrentThreadAllocatedBytes();
    for (RelocationFrame.State f : frames) {
      last = assembler.onChunk(f, CONNECTION);
    }
    final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(last).isInstanceOfSatisfying(ChunkOutcome.Complete.class,
        c -> assertThat(c.payload()).isEqualTo(payload));
    assertThat(allocated).as("bytes allocated to assemble a %d-byte payload", payload.length)
        .isBetween((long) payload.length, payload.length + (256L << 10));
  }

  /** Past 16 chunks the buffer is regrown, each time to 16 times the bytes placed, never past the total. */
  @Test
  void aPayloadOfManyChunksIsAssembledWhole() {
    final byte[] payload = new byte[(2 << 20) + 7];
    new Random(17).nextBytes(payload);
    final ChunkPlan plan = ChunkPlan.of(payload, 16 * 1024); // 129 chunks: 256 KiB first, then regrown once
    final List<Long> order = new ArrayList<>();
    for (long i = 0; i < plan.chunkCount(); i++) {
      order.add(i);
    }
    Collections.swap(order, 3, 40); // one chunk early: held in its own copy until its predecessors arrive
    final ChunkAssembler assembler = ChunkAssembler.start(manifest(ID, plan.totalLength(), plan.chunkCount(),
        plan.checksumCrc32c()), CONNECTION, 1 << 24);
    ChunkOutcome last = null;
    for (long i : order) {
      last = assembler.onChunk(plan.stateFrame(ID, OBJECT, i), CONNECTION);
    }
    assertThat(last).isInstanceOfSatisfying(ChunkOutcome.Complete.class,
        c -> assertThat(c.payload()).isEqualTo(payload));
  }
}
