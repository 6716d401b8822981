/**
 * The relocation wire of spec 001 as pure code: the relocation-envelope-v1 stream (section 4.2), the bodies of
 * commands 30, 31, 34, 40, 52 and 53 (sections 4.2 to 4.4, FACTS.md "Wire"), the session-relocation commands 42,
 * 43 and 44 (sections 4.1, 7 and 9, FACTS.md "Sessions"), and the chunk transfer with CRC-32C (sections 4.2,
 * 4.3, 5.3). No I/O, no threads, no clocks; nothing here depends on toolkit-core.
 *
 * <h2>Entry points</h2>
 * <ul>
 *   <li>{@link dev.spotkit.relocation.wire.RelocationCodec}: {@code encode(RelocationFrame)} and
 *       {@code decode(byte[])} for the six commands; {@link dev.spotkit.relocation.wire.RelocationFrame} is a
 *       sealed interface of six records. {@code decodeStateView(byte[])} and {@code decodeStateView(ByteBuffer)}
 *       read a command 52 in place ({@link dev.spotkit.relocation.wire.StateView}), the latter in a transport's
 *       receive buffer, heap or direct, so the assembler's copy is the target's only one.</li>
 *   <li>{@link dev.spotkit.relocation.wire.SessionRelocationCodec}: {@code encode} and {@code decode} for
 *       commands 42, 43 and 44; {@link dev.spotkit.relocation.wire.SessionRelocationFrame} is a sealed interface
 *       of three records, the command 44 action the sealed {@link dev.spotkit.relocation.wire.SessionRouteAction}
 *       (commit or abort).</li>
 *   <li>{@link dev.spotkit.relocation.wire.RelocationEnvelopeCodec}: the stream;
 *       {@link dev.spotkit.relocation.wire.RelocationEnvelope} and
 *       {@link dev.spotkit.relocation.wire.EnvelopeEntries} its records;
 *       {@link dev.spotkit.relocation.wire.ParticipantInventory} the participantId mapping.</li>
 *   <li>{@link dev.spotkit.relocation.wire.ChunkPlan} (source: chunk size, manifest values, chunks) and
 *       {@link dev.spotkit.relocation.wire.ChunkAssembler} (target: attribution, copy, verification).</li>
 * </ul>
 *
 * <h2>Primitives (FACTS.md "Wire")</h2>
 * Big-endian integers. nonzero-u64 is 1..2^63-1, a positive Java {@code long}; other u64 values are carried
 * unsigned. u32 values are Java {@code long}s in 0..2^32-1. text8 and rid: u8 length 1..255, then UTF-8 without
 * NUL (strict) or opaque bytes. Store version: u16 length 1..4096, UTF-8. RelocationId and OperationId: u64 high,
 * u64 low, not both zero. A union: u8 discriminator, length, case body; a length that differs from the case's
 * fields is {@code invalid-field}, a versioned section's is {@code invalid-body-length}.
 *
 * <h2>Errors</h2>
 * Bad input is only ever a {@link dev.spotkit.relocation.wire.WireFormatException} carrying a
 * {@link dev.spotkit.relocation.wire.WireError} (whose code matches the golden fixtures), a field path
 * and a byte offset; the assembler returns the same type inside its outcomes. Caller misuse (invalid record
 * values) is {@link java.lang.IllegalArgumentException}. Decoders allocate at most about the input's own size.
 *
 * <h2>Decisions where the fixtures are silent</h2>
 * <ul>
 *   <li>Relocation commands allow no head flags ({@code forbidden-flag}).</li>
 *   <li>Target fence: rid, node generation, owner id, owner lease generation (read off the vectors).</li>
 *   <li>Instance-spot object case: stableType, id, generation, expected AuthorityOwnerGeneration.</li>
 *   <li>Frozen record: only recordKind 6 (spotRequest) has a body layout; other kinds are refused. Present
 *       metadata is u8 1, u32 length, bytes. Reply route: u16 length 0 (none) or 8 (route id). Source kinds other
 *       than node are carried as opaque bytes.</li>
 *   <li>Commands 42 to 44 carry no targetAttemptGeneration (read off the vectors): their relocation identity is
 *       the RelocationId and the coordinator fence. The route block of 42 and 43 (labelled {@code targetNode*}
 *       in the fixture's {@code decoded}) holds the source's values and is read as the binding's current route
 *       ({@link dev.spotkit.relocation.wire.ActorRoute}).</li>
 *   <li>Chunks: a manifest needs 1..payloadTotalLength chunks; an empty chunk fails the assembly.</li>
 * </ul>
 */
package dev.spotkit.relocation.wire;
