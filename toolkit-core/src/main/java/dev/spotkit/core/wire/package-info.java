/**
 * Framework frames on the node-to-node wire: pure encoders and decoders, no Netty, no I/O, no clocks.
 * {@code dev.spotkit.core.mesh} carries each frame inside its own length prefix; this package only turns
 * records into bytes and bytes into records, and refuses bad bytes.
 *
 * <h2>Frame head and primitives (FACTS.md "Wire")</h2>
 * <ul>
 *   <li>Head: {@code 5A 4D 01 <command> <flags>} ({@link dev.spotkit.relocation.wire.FrameHead}). Flags 0x01
 *       metadata, 0x02 bound session, 0x04 source spot id, 0x08 extension; an undefined bit is
 *       {@code undefined-flag}; a defined bit that the command does not allow is {@code forbidden-flag}
 *       (commands 20, 47, 48, 49 allow none).</li>
 *   <li>Big-endian integers. {@code nonzero-u64} is 1..2^63-1 (the schema's maximum), so it is a positive
 *       Java {@code long}; 0 or a value with the top bit set is {@code invalid-field}.</li>
 *   <li>{@code text8}: u8 length 1..255, then UTF-8 without NUL (strictly decoded). {@code rid}: u8 length
 *       1..255, then opaque bytes ({@link dev.spotkit.relocation.wire.Rid}, the one implementation shared with
 *       toolkit-relocation, converted by {@link dev.spotkit.core.wire.Rids}; a Spotkit NodeRid is its 8 bytes
 *       big-endian). Store version: u16 length 1..4096, then UTF-8. OperationId / RelocationId: u64 high,
 *       u64 low, not both zero. Unions: a discriminator, then a length (u16, u32 or u64 by type) covering the
 *       selected case.</li>
 * </ul>
 *
 * <h2>Bodies</h2>
 * <ul>
 *   <li>48 {@code userSpotClose}: fixed by the golden vector {@code user-spot-close-v1.json}, see
 *       {@link dev.spotkit.core.wire.UserSpotCloseCodec}.</li>
 *   <li>20 {@code reply}: correlation, terminalResult u32, failureCode u32, then a tail whose layout depends
 *       on the request kind (which the requester knows, the reply does not carry) and on the result; the
 *       actorJoin tail is fixed by {@code actor-join-reply-v1.json}. See
 *       {@link dev.spotkit.core.wire.ReplyCodec} and {@link dev.spotkit.core.wire.ReplyTail}.</li>
 *   <li>47 {@code userSpotCreate} and 49 {@code actorCreate}: no golden vector fixes them. Their bodies carry
 *       what spec 002 section 7 and spec 000 section 2 say the target must check before it runs a factory:
 *       the source node rid and host-run generation, the OperationId (with those two, the request's identity
 *       for terminal records), the id and stable type, the reservation (reservation id, StoreVersion of the
 *       Creating record, the ObjectGeneration and AuthorityOwnerGeneration Reserve issued, the target node,
 *       its generation, owner id and lease generation, the reserved capacity), and the absolute deadline.
 *       The field order and types are those of the reference's published wire schema for these two commands
 *       (so a peer runtime that implements it reads the same bytes); see
 *       {@link dev.spotkit.core.wire.CreationCodec}. The creation request itself is not on the wire: the
 *       target reads it from the Creating record in the Location Store.</li>
 * </ul>
 *
 * <h2>Decisions</h2>
 * <ul>
 *   <li>Blame. Decoders throw only {@link dev.spotkit.relocation.wire.WireFormatException} for bad input (the
 *       peer's fault): it carries the {@link dev.spotkit.relocation.wire.WireError} (whose code matches the golden
 *       fixtures' {@code error} strings), the field path, the byte offset, the value and the limit. Record
 *       constructors throw {@link dev.spotkit.core.SpotkitException.InvalidOperation} for caller misuse.
 *       Any other exception from a decoder is a bug; a jqwik property test feeds random and mutated frames
 *       to every decoder to hold this.</li>
 *   <li>Length-delimited sections are parsed field by field from the frame, then the bytes they took are
 *       compared with the declared length. So a field that runs past the frame is {@code truncated-field},
 *       and a length that disagrees with complete fields is {@code invalid-body-length} for versioned
 *       sections ({@code user-spot-close-fence-v1}, the payload envelope) and {@code invalid-field} for union
 *       cases. This is the rule the golden vectors imply (a union length 4 bytes too large is
 *       {@code invalid-field}; a union whose last field is cut is {@code truncated-field}).</li>
 *   <li>Memory. No allocation is sized from a length field before that length is checked against the bytes
 *       actually present, so a decoder allocates at most about the frame's own size whatever the frame
 *       claims. The transport bounds the frame size.</li>
 *   <li>Optional application payload of command 20 (the reference's second frame of the message): Spotkit
 *       appends its bytes ({@code application-payload-envelope-v1}) after the reply inside the same transport
 *       frame. Anything after the tail that is not exactly one version-1 envelope is {@code trailing-byte}.
 *       The "extra frames" rule of the reference thus becomes "no bytes after the message".</li>
 *   <li>{@link dev.spotkit.core.wire.AuthorityKey} is the {@code authority-key-v1} text form
 *       ({@code zla1:a:7:user%3A42}); parsing accepts only the canonical encoding.</li>
 * </ul>
 */
package dev.spotkit.core.wire;
