package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.ApplicationPayload;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * Encoder and decoder of command 20 ({@link Reply}):
 *
 * <pre>
 *   0..4    head 5A 4D 01 14 00
 *   5..12   correlation u64 (non-zero)
 *   13..16  terminalResult u32          17..20  failureCode u32
 *   21..    tail, inline, layout chosen by (request kind, terminalResult) - see {@link ReplyTail}
 *   then    optionally one application-payload-envelope-v1 (version 01, u32 length, ...)
 * </pre>
 *
 * <p>The reference carries the optional application payload as a second frame of the same message; Spotkit
 * carries one message per transport frame, so the payload frame's bytes follow the reply's bytes inside the
 * same length prefix. After the tail, either nothing follows, or exactly one envelope: a byte other than its
 * version (01) there is a {@link WireError#TRAILING_BYTE}, as is anything after the envelope.
 *
 * <p>Pure functions, any thread.
 */
public final class ReplyCodec {

  private ReplyCodec() {
  }

  /**
   * Encodes a reply.
   *
   * @param reply the reply.
   * @return the complete frame (with the payload envelope appended when present).
   */
  public static byte[] encode(final Reply reply) {
    final WireOut out = new WireOut(64);
    new FrameHead(Commands.REPLY, 0).writeTo(out);
    out.u64(reply.correlation());
    out.u32(reply.terminalResult().wireValue());
    out.u32(reply.failureCode().wireValue());
    writeTail(out, reply.tail());
    if (reply.payload() != null) {
      Payloads.write(reply.payload(), out);
    }
    return out.toByteArray();
  }

  /**
   * Reads only the head and correlation of a command 20 frame: what a transport needs to route a reply to
   * its pending request before the requester, who knows the request kind, decodes the rest.
   *
   * @param frame the frame; only read.
   * @return the correlation, 1..2^63-1.
   * @throws WireFormatException when the frame is not a well-formed command 20 head with a correlation.
   */
  public static long correlation(final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "reply");
    FrameHead.expect(in, Commands.REPLY);
    return in.nonZeroU64("correlation");
  }

  /**
   * Decodes a reply to a request of the given kind.
   *
   * @param frame the frame; only read.
   * @param requestKind the kind of the request this reply answers (the reply does not carry it).
   * @return the reply.
   * @throws WireFormatException when the frame is malformed, truncated or has trailing bytes.
   * @throws SpotkitException.InvalidOperation when {@code requestKind} is actorLookup or streamBind, whose
   *     tails this codec does not implement.
   */
  public static Reply decode(final byte[] frame, final OperationKind requestKind) {
    Checks.RULES.present("requestKind", requestKind);
    if (requestKind == OperationKind.ACTOR_LOOKUP || requestKind == OperationKind.STREAM_BIND) {
      throw new SpotkitException.InvalidOperation("the reply tail of " + requestKind
          + " is not implemented; supported tails: ACTOR_JOIN, USER_SPOT_CREATE, USER_SPOT_CLOSE, ACTOR_CREATE");
    }
    final WireIn in = WireIn.frame(frame, "reply");
    FrameHead.expect(in, Commands.REPLY);
    final long correlation = in.nonZeroU64("correlation");
    final TerminalResult result = TerminalResult.read(in, "terminalResult");
    final FailureCode failure = FailureCode.read(in, "failureCode");
    final ReplyTail tail = result == TerminalResult.OK ? readTail(in, requestKind) : ReplyTail.Empty.INSTANCE;
    ApplicationPayload payload = null;
    if (in.remaining() > 0) {
      if ((frame[in.position()] & 0xFF) != ApplicationPayload.VERSION) {
        throw in.trailingBytes(); // not the start of a payload envelope
      }
      payload = Payloads.read(in, "payload");
    }
    in.expectEnd();
    return new Reply(correlation, result, failure, tail, payload);
  }

  private static ReplyTail readTail(final WireIn in, final OperationKind kind) {
    return switch (kind) {
      case USER_SPOT_CREATE -> {
        final CreateResult result = CreateResult.read(in, "tail.createResult");
        yield new ReplyTail.UserSpotCreated(result, WireSpotRef.read(in, "tail.spot"));
      }
      case USER_SPOT_CLOSE -> new ReplyTail.UserSpotClosed(in.bool8("tail.closed"));
      case ACTOR_CREATE -> readActorCreated(in);
      case ACTOR_JOIN -> readJoin(in);
      default -> ReplyTail.Empty.INSTANCE;
    };
  }

  private static ReplyTail readActorCreated(final WireIn in) {
    final CreateResult result = CreateResult.read(in, "tail.createResult");
    final int lengthAt = in.position();
    final int declared = in.u16("tail.bodyLength");
    final int start = in.position();
    final WireActorRef actor = result == CreateResult.REJECTED ? null : WireActorRef.read(in, "tail.actor");
    in.endSection("tail.bodyLength", lengthAt, start, declared, WireError.INVALID_FIELD);
    return new ReplyTail.ActorCreated(result, actor);
  }

  private static ReplyTail readJoin(final WireIn in) {
    final int resultAt = in.position();
    final long joinResult = in.u32("tail.joinResult");
    if (joinResult > 1) {
      throw in.error(WireError.INVALID_FIELD, "tail.joinResult", resultAt, "value " + joinResult,
          "0 (accepted) or 1 (rejected)");
    }
    final int lengthAt = in.position();
    final int declared = in.u16("tail.bodyLength");
    final int start = in.position();
    final ReplyTail tail;
    if (joinResult == 0) {
      final WireSpotRef spot = WireSpotRef.read(in, "tail.spot");
      final long epoch = in.nonZeroU64("tail.membershipEpoch");
      final long limit = in.u32("tail.receiveChunkLimitBytes", 0,
          ReplyTail.ActorJoinAccepted.MAX_RECEIVE_CHUNK_LIMIT_BYTES);
      tail = new ReplyTail.ActorJoinAccepted(spot, epoch, limit);
    } else {
      final boolean hasSpot = in.bool8("tail.spot.hasSpot");
      final int innerLengthAt = in.position();
      final int innerDeclared = in.u16("tail.spot.bodyLength");
      final int innerStart = in.position();
      final WireSpotRef spot = hasSpot ? WireSpotRef.read(in, "tail.spot") : null;
      in.endSection("tail.spot.bodyLength", innerLengthAt, innerStart, innerDeclared, WireError.INVALID_FIELD);
      tail = new ReplyTail.ActorJoinRejected(spot);
    }
    in.endSection("tail.bodyLength", lengthAt, start, declared, WireError.INVALID_FIELD);
    return tail;
  }

  private static void writeTail(final WireOut out, final ReplyTail tail) {
    switch (tail) {
      case ReplyTail.Empty e -> { }
      case ReplyTail.UserSpotCreated t -> {
        out.u8(t.result().wireValue());
        t.spot().writeTo(out);
      }
      case ReplyTail.UserSpotClosed t -> out.u8(t.closed() ? 1 : 0);
      case ReplyTail.ActorCreated t -> {
        out.u8(t.result().wireValue());
        final int lengthAt = out.position();
        out.u16(0);
        final int start = out.position();
        if (t.actor() != null) {
          t.actor().writeTo(out);
        }
        out.patchU16(lengthAt, out.position() - start);
      }
      case ReplyTail.ActorJoinAccepted t -> {
        out.u32(0);
        final int lengthAt = out.position();
        out.u16(0);
        final int start = out.position();
        t.spot().writeTo(out);
        out.u64(t.membershipEpoch());
        out.u32(t.receiveChunkLimitBytes());
        out.patchU16(lengthAt, out.position() - start);
      }
      case ReplyTail.ActorJoinRejected t -> {
        out.u32(1);
        final int lengthAt = out.position();
        out.u16(0);
        final int start = out.position();
        out.u8(t.spot() == null ? 0 : 1);
        final int innerLengthAt = out.position();
        out.u16(0);
        final int innerStart = out.position();
        if (t.spot() != null) {
          t.spot().writeTo(out);
        }
        out.patchU16(innerLengthAt, out.position() - innerStart);
        out.patchU16(lengthAt, out.position() - start);
      }
    }
  }
}
