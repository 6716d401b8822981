package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.FrameHead;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.WireFormatException;
import dev.spotkit.relocation.wire.WireIn;
import dev.spotkit.relocation.wire.WireOut;

/**
 * Command 61 (Spotkit-defined): destroy one Actor incarnation on its owner node, answered by exactly one
 * command 20 reply whose payload is the JSON boolean result (true destroyed, false that generation is gone).
 * The spec's files name no command for a remote Actor destroy (spec 000 section 2 defines the operation).
 *
 * @param correlation the reply correlation, non-zero.
 * @param actor the ActorId and the ObjectGeneration of the ref.
 * @param targetNodeRid the owner node the caller resolved.
 * @param expectedAuthorityOwnerGeneration the AuthorityOwnerGeneration the caller read, non-zero.
 * @param deadlineUnixMs the caller's absolute deadline in Unix ms, non-zero.
 */
public record ActorDestroy(long correlation, WireActorRef actor, Rid targetNodeRid,
    long expectedAuthorityOwnerGeneration, long deadlineUnixMs) {

  /**
   * Checks the fields.
   *
   * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
   */
  public ActorDestroy {
    Checks.RULES.positive("correlation", correlation);
    Checks.RULES.present("actor", actor);
    Checks.RULES.present("targetNodeRid", targetNodeRid);
    Checks.RULES.positive("expectedAuthorityOwnerGeneration", expectedAuthorityOwnerGeneration);
    Checks.RULES.positive("deadlineUnixMs", deadlineUnixMs);
  }

  /**
   * Encodes: head {@code 5A 4D 01 3D 00}, correlation u64, actorId text8, objectGeneration u64, targetNodeRid
   * rid, expectedAuthorityOwnerGeneration u64, deadlineUnixMs u64.
   *
   * @return the complete frame.
   */
  public byte[] encode() {
    final WireOut out = new WireOut(64 + actor.actorId().length());
    new FrameHead(Commands.ACTOR_DESTROY, 0).writeTo(out);
    out.u64(correlation);
    out.text8(actor.actorId());
    out.u64(actor.objectGeneration());
    out.rid(targetNodeRid);
    out.u64(expectedAuthorityOwnerGeneration);
    out.u64(deadlineUnixMs);
    return out.toByteArray();
  }

  /**
   * Decodes command 61.
   *
   * @param frame the complete frame; only read.
   * @return the request.
   * @throws WireFormatException when malformed, truncated or followed by trailing bytes.
   */
  public static ActorDestroy decode(final byte[] frame) {
    final WireIn in = WireIn.frame(frame, "actorDestroy");
    FrameHead.expect(in, Commands.ACTOR_DESTROY);
    final long correlation = in.nonZeroU64("correlation");
    final String id = in.text8("actorId");
    final long generation = in.nonZeroU64("objectGeneration");
    final Rid target = in.rid("targetNodeRid");
    final long aog = in.nonZeroU64("expectedAuthorityOwnerGeneration");
    final long deadline = in.nonZeroU64("deadlineUnixMs");
    in.expectEnd();
    return new ActorDestroy(correlation, new WireActorRef(id, generation), target, aog, deadline);
  }
}
