package dev.spotkit.relocation.wire;

import java.nio.ByteBuffer;

/**
 * Encoder and decoder of the relocation commands 30, 31, 34, 40, 52 and 53 (spec 001 sections 4.2 to 4.4;
 * FACTS.md "Wire"; layouts in {@link RelocationFrame}). Frames are byte-identical to the golden vectors of
 * {@code relocation-control-v1.json}. Pure functions, any thread.
 *
 * <p>Head: {@code 5A 4D 01 <command> <flags>}. Relocation commands allow no flags: an undefined bit is
 * {@link WireError#UNDEFINED_FLAG}, a defined one {@link WireError#FORBIDDEN_FLAG}.
 *
 * <p>Memory: a decoder allocates at most about the frame's own size, whatever lengths the frame declares; the
 * transport bounds the frame size.
 */
public final class RelocationCodec {

  /** Length of the frame head in bytes. */
  public static final int HEAD_LENGTH = FrameHead.LENGTH;

  private RelocationCodec() {
  }

  /**
   * Encodes one frame.
   *
   * @param frame the body.
   * @return the complete frame, head included.
   */
  public static byte[] encode(final RelocationFrame frame) {
    final WireOut out = new WireOut(160);
    FrameHead.write(out, frame.command());
    frame.identity().writeTo(out);
    switch (frame) {
      case RelocationFrame.Ready r -> {
        r.targetFence().writeTo(out);
        ObjectIdentityCodec.writeTo(r.object(), out);
        out.u8(r.senderRole().wireValue());
      }
      case RelocationFrame.Failed f -> {
        f.targetFence().writeTo(out);
        ObjectIdentityCodec.writeTo(f.object(), out);
        out.u8(f.senderRole().wireValue());
        out.u32(f.failureCode());
      }
      case RelocationFrame.Data d -> {
        out.u8(d.senderRole().wireValue());
        ObjectIdentityCodec.writeTo(d.object(), out);
        d.record().writeTo(out);
      }
      case RelocationFrame.Cutover c -> {
        out.u8(c.senderRole().wireValue());
        ObjectIdentityCodec.writeTo(c.object(), out);
        out.u64(c.boundaryRecordCount());
        out.u32(c.boundaryChecksumCrc32c());
      }
      case RelocationFrame.Prepare p -> writePrepare(p, out);
      case RelocationFrame.State s -> {
        out.u8(s.senderRole().wireValue());
        ObjectIdentityCodec.writeTo(s.object(), out);
        out.u32(s.chunkOrdinal());
        out.u32(s.chunkUnsafe().length);
        out.bytes(s.chunkUnsafe());
      }
    }
    return out.toByteArray();
  }

  /**
   * Encodes the head of a command 52 frame: everything before the chunk bytes (framework head, identity, sender
   * role, object, chunkOrdinal, chunk length). The head followed by the {@code chunkLength} chunk bytes is byte
   * for byte {@link #encode} of the same {@link RelocationFrame.State}; a transport can send the two parts
   * without joining them.
   *
   * @param identity the relocation identity.
   * @param senderRole normally {@link Role#SOURCE}.
   * @param object the object.
   * @param chunkOrdinal 0..2^32-1.
   * @param chunkLength bytes of chunk data that will follow, 0..2^31-1.
   * @return the head, a new array of exactly its size.
   * @throws IllegalArgumentException when a part is null, the ordinal is outside u32 or the length is negative.
   */
  public static byte[] encodeStateHead(final RelocationIdentity identity, final Role senderRole,
      final ObjectIdentity object, final long chunkOrdinal, final int chunkLength) {
    Fields.present("identity", identity);
    Fields.present("senderRole", senderRole);
    Fields.present("object", object);
    Fields.u32("chunkOrdinal", chunkOrdinal);
    if (chunkLength < 0) {
      throw new IllegalArgumentException("chunkLength " + chunkLength + " must not be negative");
    }
    final WireOut count = WireOut.counting();
    writeStateHead(identity, senderRole, object, chunkOrdinal, chunkLength, count);
    final WireOut out = WireOut.exact((int) count.counted());
    writeStateHead(identity, senderRole, object, chunkOrdinal, chunkLength, out);
    return out.toByteArray();
  }

  private static void writeStateHead(final RelocationIdentity identity, final Role senderRole,
      final ObjectIdentity object, final long chunkOrdinal, final int chunkLength, final WireOut out) {
    FrameHead.write(out, RelocationFrame.State.COMMAND);
    identity.writeTo(out);
    out.u8(senderRole.wireValue());
    ObjectIdentityCodec.writeTo(object, out);
    out.u32(chunkOrdinal);
    out.u32(chunkLength);
  }

  /**
   * The command byte of a frame, without decoding it.
   *
   * @param frame a framework frame.
   * @return byte 3 (the command id), or -1 when the frame is shorter than 4 bytes.
   */
  public static int commandOf(final byte[] frame) {
    return frame.length > 3 ? frame[3] & 0xFF : -1;
  }

  /**
   * Decodes a command 52 frame without copying its chunk: the result views the chunk inside {@code frame}.
   * Checks everything {@link #decode} checks for a command 52.
   *
   * @param frame the complete frame, head included; read in place, so it must not be modified while the view is
   *     used (see {@link StateView}).
   * @return the view.
   * @throws WireFormatException as {@link #decode}, and {@code unexpected-command} for any other command.
   */
  public static StateView decodeStateView(final byte[] frame) {
    final int command = commandOf(frame);
    final WireIn in = new WireIn(frame, frameName(command));
    final StateHead head = readStateHead(in, command);
    final int at = in.skip("chunk", head.chunkLength());
    in.expectEnd();
    return head.view(ByteBuffer.wrap(frame, at, (int) head.chunkLength()).slice());
  }

  /**
   * Decodes a command 52 frame held in a buffer without copying its chunk: only the head (everything before the
   * chunk bytes: about 100 to 300 bytes, at most about 5 KiB) is copied out to be parsed, and the result views the
   * chunk inside {@code frame}. Checks exactly what {@link #decodeStateView(byte[])} checks and throws the same
   * errors: a frame whose head does not parse within the bytes its own length fields describe, or whose chunk is not
   * exactly the rest of the frame, is copied whole and decoded by {@link #decodeStateView(byte[])} (malformed frames
   * only, so the copy costs nothing on the usual path).
   *
   * @param frame the complete frame, head included, from its position to its limit (neither is changed); heap or
   *     direct. The view reads it in place: it must be neither modified nor given back (e.g. a pooled receive
   *     buffer released) while the view is used (see {@link StateView}).
   * @return the view; its chunk is a read-only slice of {@code frame}.
   * @throws WireFormatException as {@link #decodeStateView(byte[])}.
   */
  public static StateView decodeStateView(final ByteBuffer frame) {
    final int base = frame.position();
    final int size = frame.remaining();
    final long headLength = stateHeadLength(frame, base, size);
    if (headLength <= size) {
      final byte[] head = new byte[(int) headLength];
      frame.get(base, head);
      final int command = commandOf(head);
      final WireIn in = new WireIn(head, frameName(command));
      StateHead parsed;
      try {
        parsed = readStateHead(in, command);
      } catch (WireFormatException e) {
        if (e.error() != WireError.TRUNCATED_FIELD) {
          throw e; // the byte[] decode reads the same bytes at the same offsets first: the same error
        }
        parsed = null; // the head's fields run past its length fields: report it as the byte[] decode does
      }
      if (parsed != null && in.remaining() == 0 && parsed.chunkLength() == size - headLength) {
        return parsed.view(frame.slice(base + (int) headLength, size - (int) headLength).asReadOnlyBuffer());
      }
    }
    final byte[] whole = new byte[size];
    frame.get(base, whole);
    return decodeStateView(whole);
  }

  /** A command 52 up to its chunk bytes; {@link #view} adds them. */
  private record StateHead(RelocationIdentity identity, Role role, ObjectIdentity object, long ordinal,
      long chunkLength) {
    StateView view(final ByteBuffer chunk) {
      return new StateView(identity, role, object, ordinal, chunk);
    }
  }

  /** Reads a command 52 from its framework head to its chunk.length, the layout {@link #writeStateHead} writes. */
  private static StateHead readStateHead(final WireIn in, final int command) {
    final RelocationIdentity identity = readHead(in, command);
    if (command != RelocationFrame.State.COMMAND) {
      throw in.error(WireError.UNEXPECTED_COMMAND, "commandId", 3, "value " + command, "52");
    }
    final Role role = Role.read(in, "senderRole");
    final ObjectIdentity object = ObjectIdentityCodec.read(in, "object");
    final long ordinal = in.u32("chunkOrdinal");
    return new StateHead(identity, role, object, ordinal, in.u32("chunk.length"));
  }

  /**
   * Where a command 52's chunk bytes start, from the head's own length fields ({@link #writeStateHead}: framework
   * head 5, relocationId 16, targetAttemptGeneration 8, ownerId u8-prefixed, ownerLeaseGeneration 8, nodeRid
   * u8-prefixed, nodeGeneration 8, expectedAuthorityStoreVersion u16-prefixed, senderRole 1, objectKind 1, object
   * section u16-prefixed, chunkOrdinal 4, chunk.length 4). Nothing is checked here but that each length field lies
   * within the frame; {@link #readStateHead} checks the values.
   *
   * @return the head's length in bytes; above {@code size} when a length field or the head's end lies beyond it.
   */
  private static long stateHeadLength(final ByteBuffer frame, final int base, final int size) {
    long at = FrameHead.LENGTH + 16 + 8;
    at = afterPrefixed(frame, base, size, at, 1) + 8;
    at = afterPrefixed(frame, base, size, at, 1) + 8;
    at = afterPrefixed(frame, base, size, at, 2) + 1 + 1;
    return afterPrefixed(frame, base, size, at, 2) + 4 + 4;
  }

  /** The offset after a field of a {@code width}-byte big-endian length at {@code at} and its bytes. */
  private static long afterPrefixed(final ByteBuffer frame, final int base, final int size, final long at,
      final int width) {
    if (at + width > size) {
      return (long) size + 1; // beyond the frame: the caller decodes a copy of the whole frame
    }
    final int i = base + (int) at;
    final int length = width == 1 ? frame.get(i) & 0xFF : (frame.get(i) & 0xFF) << 8 | frame.get(i + 1) & 0xFF;
    return at + width + length;
  }

  private static void writePrepare(final RelocationFrame.Prepare p, final WireOut out) {
    p.targetFence().writeTo(out);
    out.u8(p.initiatorRole().wireValue());
    ObjectIdentityCodec.writeTo(p.object(), out);
    out.rid(p.sourceNodeRid());
    out.u64(p.sourceNodeGeneration());
    out.u64(p.payloadTotalLength());
    out.u32(p.payloadChunkCount());
    out.u32(p.payloadChecksumCrc32c());
    out.u64(p.applicationVersion());
  }

  /**
   * Decodes one frame of any of the six commands.
   *
   * @param frame the complete frame, head included; only read, not kept.
   * @return the body; switch over the sealed {@link RelocationFrame}.
   * @throws WireFormatException the only exception for bad input: bad magic or version, another command, a
   *     flag, a truncated or invalid field, or trailing bytes.
   */
  public static RelocationFrame decode(final byte[] frame) {
    final int command = commandOf(frame);
    final WireIn in = new WireIn(frame, frameName(command));
    final RelocationIdentity identity = readHead(in, command);
    final RelocationFrame result = switch (command) {
      case RelocationFrame.Ready.COMMAND -> {
        final TargetFence fence = TargetFence.read(in, "targetFence");
        final ObjectIdentity object = ObjectIdentityCodec.read(in, "object");
        yield new RelocationFrame.Ready(identity, fence, object, Role.read(in, "senderRole"));
      }
      case RelocationFrame.Failed.COMMAND -> {
        final TargetFence fence = TargetFence.read(in, "targetFence");
        final ObjectIdentity object = ObjectIdentityCodec.read(in, "object");
        final Role role = Role.read(in, "senderRole");
        yield new RelocationFrame.Failed(identity, fence, object, role, in.nonZeroU32("failureCode"));
      }
      case RelocationFrame.Data.COMMAND -> {
        final Role role = Role.read(in, "senderRole");
        final ObjectIdentity object = ObjectIdentityCodec.read(in, "object");
        yield new RelocationFrame.Data(identity, role, object, FrozenRecord.read(in, "record"));
      }
      case RelocationFrame.Cutover.COMMAND -> {
        final Role role = Role.read(in, "senderRole");
        final ObjectIdentity object = ObjectIdentityCodec.read(in, "object");
        final long count = nonNegativeU64(in, "boundaryRecordCount");
        yield new RelocationFrame.Cutover(identity, role, object, count, in.u32("boundaryChecksumCrc32c"));
      }
      case RelocationFrame.Prepare.COMMAND -> readPrepare(in, identity);
      default -> {
        final Role role = Role.read(in, "senderRole");
        final ObjectIdentity object = ObjectIdentityCodec.read(in, "object");
        final long ordinal = in.u32("chunkOrdinal");
        final long length = in.u32("chunk.length");
        yield new RelocationFrame.State(identity, role, object, ordinal, in.bytes("chunk", length));
      }
    };
    in.expectEnd();
    return result;
  }

  /** Reads and checks the framework head of a relocation command and the identity after it. */
  private static RelocationIdentity readHead(final WireIn in, final int command) {
    FrameHead.read(in, !frameName(command).equals("frame"), "30, 31, 34, 40, 52 or 53");
    return RelocationIdentity.read(in);
  }

  private static RelocationFrame.Prepare readPrepare(final WireIn in, final RelocationIdentity identity) {
    final TargetFence fence = TargetFence.read(in, "targetFence");
    final Role role = Role.read(in, "initiatorRole");
    final ObjectIdentity object = ObjectIdentityCodec.read(in, "object");
    final Rid sourceRid = in.rid("sourceNodeRid");
    final long sourceGeneration = in.nonZeroU64("sourceNodeGeneration");
    final long total = nonNegativeU64(in, "payloadTotalLength");
    final long count = in.u32("payloadChunkCount");
    final long crc = in.u32("payloadChecksumCrc32c");
    final long version = in.u64("applicationVersion");
    return new RelocationFrame.Prepare(identity, fence, role, object, sourceRid, sourceGeneration, total, count,
        crc, version);
  }

  private static long nonNegativeU64(final WireIn in, final String field) {
    final int at = in.position();
    final long v = in.u64(field);
    if (v < 0) {
      throw in.error(WireError.INVALID_FIELD, field, at, "value " + Long.toUnsignedString(v),
          "0..9223372036854775807");
    }
    return v;
  }

  private static String frameName(final int command) {
    return switch (command) {
      case RelocationFrame.Ready.COMMAND -> "relocationReady";
      case RelocationFrame.Data.COMMAND -> "relocationData";
      case RelocationFrame.Cutover.COMMAND -> "relocationCutover";
      case RelocationFrame.Prepare.COMMAND -> "relocationPrepare";
      case RelocationFrame.State.COMMAND -> "relocationState";
      case RelocationFrame.Failed.COMMAND -> "relocationFailed";
      default -> "frame";
    };
  }
}
