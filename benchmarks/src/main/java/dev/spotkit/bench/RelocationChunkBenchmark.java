package dev.spotkit.bench;

import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.ChunkAssembler;
import dev.spotkit.relocation.wire.ChunkOutcome;
import dev.spotkit.relocation.wire.ChunkPlan;
import dev.spotkit.relocation.wire.CoordinatorFence;
import dev.spotkit.relocation.wire.EnvelopeEntries.ApplicationState;
import dev.spotkit.relocation.wire.EnvelopeEntries.PendingTimerTick;
import dev.spotkit.relocation.wire.EnvelopeEntries.SavedWork;
import dev.spotkit.relocation.wire.EnvelopeEntries.TimerRegistration;
import dev.spotkit.relocation.wire.FrozenRecord;
import dev.spotkit.relocation.wire.ObjectIdentity;
import dev.spotkit.relocation.wire.OperationId;
import dev.spotkit.relocation.wire.RecordBody;
import dev.spotkit.relocation.wire.RecordSource;
import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationEnvelope;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.RelocationId;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.Role;
import dev.spotkit.relocation.wire.StateFrameParts;
import dev.spotkit.relocation.wire.StateView;
import dev.spotkit.relocation.wire.TargetFence;
import dev.spotkit.relocation.wire.TargetSpot;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Relocation chunk throughput (spec 001 section 4.2): one op = one relocation payload moved from a source to a
 * target over one loopback {@link MeshLoopback} connection (two toolkit-core {@code MeshTransport}s, Netty NIO,
 * 127.0.0.1) and verified on the target. The primary score is payloads/s; the {@code payloadBytes} secondary score
 * ({@link PayloadBytes}) is the same rate in payload bytes/s (JMH prints it with the unit "ops/s").
 *
 * <p>Variants ({@code impl}):
 * <ul>
 *   <li>{@code relocation}: capture, then {@link ChunkPlan#encode} with 256 KiB chunks ({@link ChunkPlan#chunkSize}
 *       of the default RelocationPayloadChunkLimit and a 256 KiB advertised receive limit): the relocation-envelope-v1
 *       stream encoded into one array of exact size with its CRC-32C computed block by block as it is written,
 *       command 40 ({@link RelocationCodec#encode}) then one command 52 per chunk as a small
 *       head plus a range of the stream ({@link ChunkPlan#stateFrameParts}, sent as two parts without joining
 *       them), in order on the connection. The target decodes each command 52 on its event loop in place, in the
 *       connection's receive buffer, as the runtime does ({@link RelocationCodec#decodeStateView(ByteBuffer)}),
 *       feeds a {@link ChunkAssembler} (which copies
 *       each chunk once into its stream buffer and computes the CRC-32C as chunks arrive), and on
 *       {@link ChunkOutcome.Complete} decodes the envelope in place ({@link RelocationEnvelopeCodec#decodeOwned})
 *       against a one-participant inventory and checks its relocation id, vector sizes and state length.</li>
 *   <li>{@code raw}: the same number of stream bytes as frames of the same chunk size, each a bare 5-byte
 *       framework head ({@code 5A 4D 01 34 00}) plus stream bytes, prebuilt once per trial and sent over the same
 *       kind of loopback connection; the target only counts bytes, in the receive buffer (no copy). This is the
 *       physical limit of the mesh transport (framing, event loops, TCP loopback), so relocation/raw isolates
 *       relocation's capture, encode, CRC-32C and assembly costs.</li>
 *   <li>{@code raw-copy}: {@code raw}, with each frame copied out of the receive buffer into a {@code byte[]} first:
 *       the baseline as it was while the mesh decoder copied every frame (before 2026-12-06).</li>
 * </ul>
 *
 * <p>Capture: capture from a live actor is not wired yet. The envelope is built from a synthetic application state
 * of {@code payload} bytes (one participant, seeded random bytes, copied into the envelope each op like a capture
 * would) plus {@value #SAVED_WORK} saved-work records (spot requests with {@value #RECORD_PAYLOAD_BYTES}-byte
 * application payloads), {@value #TIMERS} timer registrations and {@value #TICKS} pending timer ticks. The stream
 * is therefore slightly longer than {@code payload}; the byte rates count {@code payload} bytes only.
 *
 * <p>Every invocation moves one payload and waits for the target's result (a queue polled with a timeout), so no
 * work overlaps two invocations. A failed assembly, an unexpected frame or a wrong decoded envelope fails the
 * benchmark; the trial's teardown also compares the last restored state with the source's byte for byte.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 3, jvmArgsAppend = {Jvm.ADD_OPENS, Jvm.NATIVE, Jvm.XMS, Jvm.XMX, Jvm.QUIET_SLF4J})
public class RelocationChunkBenchmark {
    /** Chunk size of both variants: 256 KiB, the default RelocationPayloadChunkLimit. */
    public static final int CHUNK_BYTES = ChunkPlan.DEFAULT_CHUNK_LIMIT_BYTES;
    /** Saved-work records in the synthetic envelope. */
    public static final int SAVED_WORK = 8;
    /** Application payload bytes of each saved-work record. */
    public static final int RECORD_PAYLOAD_BYTES = 256;
    /** Timer registrations in the synthetic envelope. */
    public static final int TIMERS = 2;
    /** Pending timer ticks in the synthetic envelope. */
    public static final int TICKS = 3;

    /** Largest stream the target accepts (its runtime memory limit): 64 MiB. */
    static final int MAX_PAYLOAD_BYTES = 64 << 20;
    /** The transport's numbering of the one connection; the assembler only compares it. */
    static final long CONNECTION_ID = 1;

    /** Variant under test. */
    @Param({"relocation", "raw", "raw-copy"})
    public String impl;

    /** Application state bytes of the one participant (64 KiB, 1 MiB, 16 MiB). */
    @Param({"65536", "1048576", "16777216"})
    public int payload;

    private Transfer transfer;

    /** Builds the synthetic state, starts the two transports and connects them. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        final Synthetic synthetic = new Synthetic(payload);
        transfer = switch (impl) {
            case "relocation" -> new Relocation(synthetic);
            case "raw" -> new Raw(synthetic, false);
            case "raw-copy" -> new Raw(synthetic, true);
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
    }

    /**
     * Checks the last restored state against the source and closes both transports.
     *
     * @throws IllegalStateException when the target restored other bytes than the source captured.
     */
    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            transfer.verifyLast();
        } finally {
            transfer.close();
        }
    }

    /**
     * One invocation: one payload moved and verified.
     *
     * @param bytes counts the payload bytes moved, for the bytes/s secondary score.
     * @throws Exception when the target failed or did not finish within {@link Jvm#INVOCATION_TIMEOUT_SECONDS}.
     */
    @Benchmark
    public void transfer(final PayloadBytes bytes) throws Exception {
        transfer.runOnce();
        bytes.payloadBytes += payload;
    }

    /** The bytes/s secondary score: payload bytes moved, counted per invocation. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class PayloadBytes {
        /** Payload bytes moved in this iteration; JMH reports it per second. */
        public long payloadBytes;

        /** Starts every iteration from zero. */
        @Setup(Level.Iteration)
        public void reset() {
            payloadBytes = 0;
        }
    }

    /**
     * What the target reports for one payload, from its event loop to the harness.
     *
     * @param relocation the decoded envelope's relocation id (null in the raw variant).
     * @param streamBytes stream bytes received.
     * @param error what went wrong, or null.
     */
    record Result(RelocationId relocation, long streamBytes, String error) {
    }

    /** One variant: the source's work per invocation, the target's frame handler and the wait between them. */
    abstract static class Transfer implements Workload {
        /** Target results, offered on the target's event loop, polled by the harness. */
        final BlockingQueue<Result> results = new ArrayBlockingQueue<>(64);
        final Synthetic synthetic;
        /** Set once by {@link #connect()}, on the harness thread, before the first send. */
        MeshLoopback mesh;

        Transfer(final Synthetic synthetic) {
            this.synthetic = synthetic;
        }

        /**
         * Starts the transports; subclasses call it last in their constructor, so every field the target's
         * handler reads is written before the transports (and their event loops) start.
         */
        final void connect() throws Exception {
            mesh = new MeshLoopback(this::onTargetFrame, frame -> {
                try {
                    onTargetStateFrame(frame);
                } finally {
                    frame.release(); // read in place: nothing refers to the buffer once the handler returned
                }
            });
        }

        /** Target event loop: one frame other than command 52. */
        abstract void onTargetFrame(byte[] frame);

        /** Target event loop: one command 52 in the receive buffer (released by the caller after this returns). */
        abstract void onTargetStateFrame(ByteBuf frame);

        /** Harness, after the trial: the target restored exactly the source's state. */
        abstract void verifyLast();

        /** Target event loop: reports a result; never blocks (the harness takes one per invocation). */
        final void report(final Result result) {
            if (!results.offer(result)) {
                throw new IllegalStateException("result queue full; the harness stopped taking results");
            }
        }

        /** Harness: waits for the target's result and checks it. */
        final void await(final String what, final RelocationId relocation, final long streamBytes)
            throws InterruptedException, TimeoutException {
            final Result r = results.poll(Jvm.INVOCATION_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (r == null) {
                throw new TimeoutException(what + " did not finish within " + Jvm.INVOCATION_TIMEOUT_SECONDS + " s");
            }
            if (r.error() != null) {
                throw new IllegalStateException(what + " failed on the target: " + r.error());
            }
            if (r.streamBytes() != streamBytes || (relocation != null && !relocation.equals(r.relocation()))) {
                throw new IllegalStateException(what + ": target reported " + r + "; expected relocation "
                    + relocation + " and " + streamBytes + " stream bytes");
            }
        }

        @Override
        public void close() {
            if (mesh != null) {
                mesh.close();
            }
        }
    }

    /** The {@code relocation} variant: capture, encode, chunk, CRC-32C, commands 40 + 52, assemble, decode. */
    static final class Relocation extends Transfer {
        private final long streamBytes;
        private long invocation;
        /** Target event loop only: the assembly in progress, null between payloads. */
        private ChunkAssembler assembly;
        /** Written by the target event loop at each completion; read by the harness after the last result. */
        private volatile ApplicationState lastState;

        Relocation(final Synthetic synthetic) throws Exception {
            super(synthetic);
            this.streamBytes = RelocationEnvelopeCodec.encode(synthetic.capture(new RelocationId(1, 1))).length;
            connect();
        }

        @Override
        public void runOnce() throws Exception {
            final RelocationId id = new RelocationId(0x5EED, ++invocation);
            final RelocationIdentity identity = new RelocationIdentity(id, 1, synthetic.coordinator);
            final int chunkSize = ChunkPlan.chunkSize(ChunkPlan.DEFAULT_CHUNK_LIMIT_BYTES,
                OptionalLong.of(CHUNK_BYTES), OptionalLong.empty());
            // encode (one array of exact size) with the CRC-32C computed block by block while encoding
            final ChunkPlan plan = ChunkPlan.encode(synthetic.capture(id), chunkSize);
            mesh.send(RelocationCodec.encode(new RelocationFrame.Prepare(identity, synthetic.targetFence,
                Role.SOURCE, synthetic.object, synthetic.sourceRid, 1, plan.totalLength(), plan.chunkCount(),
                plan.checksumCrc32c(), Synthetic.APPLICATION_VERSION)));
            for (long ordinal = 0; ordinal < plan.chunkCount(); ordinal++) {
                // head (fields up to the chunk length) + a range of the plan's stream, sent without joining them
                final StateFrameParts parts = plan.stateFrameParts(identity, synthetic.object, ordinal);
                mesh.send(parts.head(), parts.stream(), parts.offset(), parts.length());
            }
            await("relocation of " + plan.totalLength() + " stream bytes", id, streamBytes);
        }

        @Override
        void onTargetStateFrame(final ByteBuf frame) {
            try {
                // a view of the receive buffer; the assembler copies the chunk once, before the buffer is released
                onChunk(RelocationCodec.decodeStateView(frame.nioBuffer()));
            } catch (RuntimeException e) {
                assembly = null;
                report(new Result(null, 0, String.valueOf(e)));
            }
        }

        @Override
        void onTargetFrame(final byte[] frame) {
            try {
                final RelocationFrame decoded = RelocationCodec.decode(frame);
                if (decoded instanceof RelocationFrame.Prepare prepare) {
                    if (assembly != null) {
                        report(new Result(null, 0, "command 40 while an assembly is open: " + prepare));
                    }
                    assembly = ChunkAssembler.start(prepare, CONNECTION_ID, MAX_PAYLOAD_BYTES);
                } else {
                    report(new Result(null, 0, "unexpected command " + decoded.command()));
                }
            } catch (RuntimeException e) {
                assembly = null;
                report(new Result(null, 0, String.valueOf(e)));
            }
        }

        private void onChunk(final StateView state) {
            if (assembly == null) {
                report(new Result(null, 0, "command 52 without a command 40: " + state));
                return;
            }
            final ChunkOutcome outcome = assembly.onChunk(state, CONNECTION_ID);
            if (outcome instanceof ChunkOutcome.Accepted) {
                return;
            }
            assembly = null;
            if (outcome instanceof ChunkOutcome.Complete complete) {
                report(restore(complete.payload()));
            } else {
                report(new Result(null, 0, "chunk " + state.chunkOrdinal() + ": " + outcome));
            }
        }

        /** Decodes the verified stream and checks it: what the target's restore would read first. */
        private Result restore(final byte[] stream) {
            // the assembler handed the stream over: decode it in place, states are read-only views of it
            final RelocationEnvelope env = RelocationEnvelopeCodec.decodeOwned(stream, 1, MAX_PAYLOAD_BYTES);
            final ApplicationState state = env.applicationStates().size() == 1 ? env.applicationStates().get(0) : null;
            if (state == null || !state.hasState() || state.stateLength() != synthetic.state.length
                || env.savedWork().size() != SAVED_WORK
                || env.timerRegistrations().size() != TIMERS || env.pendingTimerTicks().size() != TICKS) {
                return new Result(env.relocation(), stream.length, "decoded envelope differs in shape: states "
                    + env.applicationStates().size() + ", savedWork " + env.savedWork().size() + ", timers "
                    + env.timerRegistrations().size() + ", ticks " + env.pendingTimerTicks().size());
            }
            lastState = state;
            return new Result(env.relocation(), stream.length, null);
        }

        @Override
        void verifyLast() {
            final ApplicationState last = lastState;
            if (last != null && !last.stateBuffer().equals(ByteBuffer.wrap(synthetic.state))) {
                throw new IllegalStateException("the target restored other state bytes than the source captured");
            }
        }
    }

    /** The {@code raw} variant: the same stream bytes as bare framework frames of the same chunk size. */
    static final class Raw extends Transfer {
        /** Same head byte as command 52; the body is raw stream bytes and is never decoded. */
        static final int COMMAND = 52;
        private static final int HEAD = RelocationCodec.HEAD_LENGTH;

        private final byte[] stream;
        private final List<byte[]> frames = new ArrayList<>();
        /** Target event loop only. */
        private long received;
        /** The last bytes of the last frame of each payload: written by the target event loop at each completion. */
        private volatile byte[] lastFrameTail;
        /** How many bytes of the last frame {@link #lastFrameTail} keeps: 16. */
        private static final int TAIL = 16;

        /** {@code raw-copy}: each frame is copied out of the receive buffer first, as all were until 2026-12-06. */
        private final boolean copy;

        Raw(final Synthetic synthetic, final boolean copy) throws Exception {
            super(synthetic);
            this.copy = copy;
            stream = RelocationEnvelopeCodec.encode(synthetic.capture(new RelocationId(1, 1)));
            for (int from = 0; from < stream.length; from += CHUNK_BYTES) {
                final int length = Math.min(CHUNK_BYTES, stream.length - from);
                final byte[] frame = new byte[HEAD + length];
                frame[0] = 0x5A;
                frame[1] = 0x4D;
                frame[2] = 1;
                frame[3] = COMMAND;
                System.arraycopy(stream, from, frame, HEAD, length);
                frames.add(frame);
            }
            connect();
        }

        @Override
        public void runOnce() throws Exception {
            for (byte[] frame : frames) {
                mesh.send(frame); // prebuilt and never modified: the transport reads it, nobody writes it
            }
            await("raw transfer of " + stream.length + " stream bytes", null, stream.length);
        }

        @Override
        void onTargetFrame(final byte[] frame) {
            report(new Result(null, received, "unexpected frame of " + frame.length + " bytes"));
        }

        @Override
        void onTargetStateFrame(final ByteBuf frame) {
            final int length = copy ? copiedLength(frame) : frame.readableBytes();
            if (length <= HEAD + TAIL) {
                report(new Result(null, received, "unexpected frame of " + length + " bytes"));
                return;
            }
            received += length - HEAD;
            if (received == stream.length) {
                lastFrameTail = ByteBufUtil.getBytes(frame, frame.writerIndex() - TAIL, TAIL);
                report(new Result(null, received, null));
                received = 0;
            } else if (received > stream.length) {
                report(new Result(null, received, "more bytes than the stream's " + stream.length));
                received = 0;
            }
        }

        /** {@code raw-copy}: the frame's length as read from its copy (its command byte checked there too). */
        private static int copiedLength(final ByteBuf frame) {
            final byte[] bytes = ByteBufUtil.getBytes(frame);
            return (bytes[3] & 0xFF) == COMMAND ? bytes.length : -1;
        }

        @Override
        void verifyLast() {
            final byte[] last = lastFrameTail;
            if (last != null && !Arrays.equals(last, 0, TAIL, stream, stream.length - TAIL, stream.length)) {
                throw new IllegalStateException("the target received other bytes than the source sent");
            }
        }
    }

    /**
     * The synthetic relocation source: one participant's application state plus a little saved work and timer
     * state, as a capture would freeze them. Everything but the state copy is built once per trial.
     */
    static final class Synthetic {
        static final long APPLICATION_VERSION = 7;

        final byte[] state;
        final ObjectIdentity object = new ObjectIdentity.Actor("bench-actor-1", 1, 1);
        final Rid sourceRid = Rid.ofUtf8("node-source");
        final Rid targetRid = Rid.ofUtf8("node-target");
        final TargetFence targetFence = new TargetFence(targetRid, 1, "owner-target", 1);
        final CoordinatorFence coordinator = new CoordinatorFence("owner-source", 1, sourceRid, 1, "v1");
        private final List<SavedWork> savedWork = new ArrayList<>();
        private final List<TimerRegistration> timers = new ArrayList<>();
        private final List<PendingTimerTick> ticks = new ArrayList<>();

        Synthetic(final int stateBytes) {
            if (stateBytes < 1) {
                throw new IllegalArgumentException("payload " + stateBytes + " bytes must be at least 1");
            }
            state = new byte[stateBytes];
            new SplittableRandom(42).nextBytes(state);
            final SplittableRandom random = new SplittableRandom(7);
            final TargetSpot spot = new TargetSpot("bench-actor-1", 1, sourceRid, 1, 1, 1);
            final RecordSource sender = new RecordSource.Node(Rid.ofUtf8("node-client"), 1, "owner-client", 1);
            for (int i = 1; i <= SAVED_WORK; i++) {
                final byte[] body = new byte[RECORD_PAYLOAD_BYTES];
                random.nextBytes(body);
                final FrozenRecord record = new FrozenRecord(sender, null, new OperationId(0xC0FFEE, i), 3, i,
                    new RecordBody.SpotRequest(spot, new ApplicationPayload("ChatRequest", "application/json",
                        body)));
                savedWork.add(new SavedWork(1, i, record));
            }
            for (int i = 1; i <= TIMERS; i++) {
                timers.add(new TimerRegistration(1, "timer-" + i, "dev.spotkit.bench.Tick", 1000L * i,
                    TimerRegistration.OVERRUN_SKIP_LATE_TICKS, 3, false, 10, 10, 1_800_000_000_000L + 1000L * i));
            }
            for (int i = 1; i <= TICKS; i++) {
                ticks.add(new PendingTimerTick(1, i, "timer-1", 10 + i, 10 + i, 1_800_000_000_000L + i, 0));
            }
        }

        /**
         * The envelope a capture would freeze: copies the state bytes (ApplicationState copies), shares the
         * immutable records.
         */
        RelocationEnvelope capture(final RelocationId relocation) {
            return new RelocationEnvelope(relocation, object, APPLICATION_VERSION,
                List.of(new ApplicationState(1, state)), savedWork, timers, ticks);
        }
    }
}
