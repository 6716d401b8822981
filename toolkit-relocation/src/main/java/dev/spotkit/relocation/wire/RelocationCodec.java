package dev.spotkit.relocation.wire;

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
    final RelocationIdentity identity = readHead(in, command);
    if (command != RelocationFrame.State.COMMAND) {
      throw in.error(WireError.UNEXPECTED_COMMAND, "commandId", 3, "value " + command, "52");
    }
    final Role role = Role.read(in, "senderRole");
    final ObjectIdentity object = ObjectIdentityCodec.read(in, "object");
    final long ordinal = in.u32("chunkOrdinal");
    final long length = in.u32("chunk.length");
    final int at = in.skip("chunk", length);
    in.expectEnd();
    return new StateView(identity, role, object, ordinal, frame, at, (int) length);
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
