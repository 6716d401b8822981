package dev.spotkit.relocation.wire;

/**
 * Encoder and decoder of the session-relocation commands 42, 43 and 44 (spec 001 sections 4.1, 7 and 9; FACTS.md
 * "Sessions"; layouts in {@link SessionRelocationFrame}, {@link SessionRouteAction}, {@link ActorRoute} and
 * {@link SessionOwner}). Frames are byte-identical to the canonical vectors of
 * {@code session-relocation-barrier-v1.json}. Pure functions, any thread.
 *
 * <p>Decoding is strict: the head is checked as for commands 30 to 53 (no flags allowed), every field must be
 * in range, and nothing may follow the last field. Bad input is only ever a {@link WireFormatException}
 * naming the frame, field and offset, for example {@code sessionRelocationRoute: invalid-field action at offset
 * 115: value 3, expected 1 (commit) or 2 (abort)}. A decoder allocates at most about the frame's own size.
 */
public final class SessionRelocationCodec {

  private SessionRelocationCodec() {
  }

  /**
   * Encodes one frame.
   *
   * @param frame the body.
   * @return the complete frame, head included, a new array.
   * @throws IllegalArgumentException when {@code frame} is null.
   */
  public static byte[] encode(final SessionRelocationFrame frame) {
    Fields.present("frame", frame);
    final WireOut out = new WireOut(192);
    FrameHead.write(out, frame.command());
    frame.relocationId().writeTo(out);
    frame.coordinatorFence().writeTo(out);
    final SessionBinding b = frame.binding();
    switch (frame) {
      case SessionRelocationFrame.Seal s -> {
        out.u8(s.senderRole().wireValue());
        writeActor(b, out);
        s.currentRoute().writeTo(out);
        writeSession(b, out);
      }
      case SessionRelocationFrame.Sealed s -> {
        writeActor(b, out);
        s.currentRoute().writeTo(out);
        writeSession(b, out);
      }
      case SessionRelocationFrame.Route r -> {
        out.u8(r.senderRole().wireValue());
        writeActor(b, out);
        writeSession(b, out);
        writeAction(r.action(), out);
      }
    }
    return out.toByteArray();
  }

  private static void writeActor(final SessionBinding b, final WireOut out) {
    out.text8(b.actorId());
    out.u64(b.objectGeneration());
  }

  private static void writeSession(final SessionBinding b, final WireOut out) {
    b.sessionOwner().writeTo(out);
    out.rid(b.sessionRid());
    out.u64(b.bindingGeneration());
  }

  private static void writeAction(final SessionRouteAction action, final WireOut out) {
    out.u8(action.wireValue());
    final int lengthAt = out.position();
    out.u16(0);
    final int start = out.position();
    switch (action) {
      case SessionRouteAction.Commit c -> {
        out.u64(c.previousAuthorityOwnerGeneration());
        out.u64(c.target().authorityOwnerGeneration());
        out.rid(c.target().nodeRid());
        out.u64(c.target().nodeGeneration());
        out.u64(c.target().ownerLeaseGeneration());
      }
      case SessionRouteAction.Abort a -> out.u64(a.currentAuthorityOwnerGeneration());
    }
    out.patchU16(lengthAt, out.position() - start);
  }

  /**
   * Decodes one frame of command 42, 43 or 44.
   *
   * @param frame the complete frame, head included; only read, not kept.
   * @return the body; switch over the sealed {@link SessionRelocationFrame}.
   * @throws WireFormatException the only exception for bad input: bad magic or version, another command
   *     ({@code unexpected-command}), a flag, a truncated field, an out-of-range value or unknown senderRole or
   *     action ({@code invalid-field}), an action length that differs from its case ({@code invalid-field}), or
   *     bytes after the last field ({@code trailing-byte}).
   * @throws IllegalArgumentException when {@code frame} is null.
   */
  public static SessionRelocationFrame decode(final byte[] frame) {
    Fields.present("frame", frame);
    final int command = RelocationCodec.commandOf(frame);
    final WireIn in = new WireIn(frame, frameName(command));
    FrameHead.read(in, !frameName(command).equals("frame"), "42, 43 or 44");
    final RelocationId id = RelocationId.read(in, "relocationId");
    final CoordinatorFence fence = CoordinatorFence.read(in, "coordinatorFence");
    final SessionRelocationFrame result = switch (command) {
      case SessionRelocationFrame.Seal.COMMAND -> {
        final Role role = Role.read(in, "senderRole");
        final String actorId = in.text8("actorId");
        final long objectGeneration = in.nonZeroU64("objectGeneration");
        final ActorRoute route = ActorRoute.read(in, "currentRoute");
        yield new SessionRelocationFrame.Seal(id, fence, role, readSession(in, actorId, objectGeneration), route);
      }
      case SessionRelocationFrame.Sealed.COMMAND -> {
        final String actorId = in.text8("actorId");
        final long objectGeneration = in.nonZeroU64("objectGeneration");
        final ActorRoute route = ActorRoute.read(in, "currentRoute");
        yield new SessionRelocationFrame.Sealed(id, fence, readSession(in, actorId, objectGeneration), route);
      }
      default -> {
        final Role role = Role.read(in, "senderRole");
        final String actorId = in.text8("actorId");
        final long objectGeneration = in.nonZeroU64("objectGeneration");
        final SessionBinding binding = readSession(in, actorId, objectGeneration);
        yield new SessionRelocationFrame.Route(id, fence, role, binding, readAction(in));
      }
    };
    in.expectEnd();
    return result;
  }

  private static SessionBinding readSession(final WireIn in, final String actorId, final long objectGeneration) {
    final SessionOwner owner = SessionOwner.read(in, "sessionOwner");
    final Rid sessionRid = in.rid("sessionRid");
    final long bindingGeneration = in.nonZeroU64("bindingGeneration");
    return new SessionBinding(owner, sessionRid, bindingGeneration, actorId, objectGeneration);
  }

  private static SessionRouteAction readAction(final WireIn in) {
    final int kindAt = in.position();
    final int kind = in.u8("action");
    if (kind != SessionRouteAction.Commit.WIRE_VALUE && kind != SessionRouteAction.Abort.WIRE_VALUE) {
      throw in.error(WireError.INVALID_FIELD, "action", kindAt, "value " + kind,
          "1 (commit) or 2 (abort)");
    }
    final int lengthAt = in.position();
    final int length = in.u16("action.length");
    final int start = in.position();
    final SessionRouteAction action;
    if (kind == SessionRouteAction.Commit.WIRE_VALUE) {
      final long previous = in.nonZeroU64("commit.previousAuthorityOwnerGeneration");
      final long authority = in.nonZeroU64("commit.targetAuthorityOwnerGeneration");
      final Rid rid = in.rid("commit.targetNodeRid");
      final long nodeGeneration = in.nonZeroU64("commit.targetNodeGeneration");
      final long lease = in.nonZeroU64("commit.targetOwnerLeaseGeneration");
      action = new SessionRouteAction.Commit(previous, new ActorRoute(rid, nodeGeneration, authority, lease));
    } else {
      action = new SessionRouteAction.Abort(in.nonZeroU64("abort.currentAuthorityOwnerGeneration"));
    }
    in.endSection("action.length", lengthAt, start, length, WireError.INVALID_FIELD);
    return action;
  }

  private static String frameName(final int command) {
    return switch (command) {
      case SessionRelocationFrame.Seal.COMMAND -> "sessionRelocationSeal";
      case SessionRelocationFrame.Sealed.COMMAND -> "sessionRelocationSealed";
      case SessionRelocationFrame.Route.COMMAND -> "sessionRelocationRoute";
      default -> "frame";
    };
  }
}
