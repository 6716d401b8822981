package dev.spotkit.relocation.sim;

/**
 * Which runtime the aggregate world models: the protocol as the spec asks for it, toolkit-core's aggregate code as
 * written today, or a deliberately broken variant the {@link AggregateChecker} must catch (so the simulator is proven
 * able to fail).
 */
public enum AggregateVariant {
  /**
   * The protocol as spec 000 sections 7 and 8 and spec 001 section 4.5 ask: toolkit-core's AggregateSeal,
   * AggregateRestore and AggregateMoves step for step, with two mends where the code as written loses work (each has
   * a variant of its own below): after a CAS whose answer was lost, a failed re-read is retried ("target doesn't
   * guess; it re-reads the same authority") instead of giving the staged room up; and a target that gives its staging
   * up after the relay arrived fails every staged message with a typed error (as {@code TargetUnit} does on removal,
   * REL-18, REL-20).
   */
  SPEC,
  /**
   * toolkit-core as written: when the aggregate CAS's answer is lost, {@code AggregateAuthority.write} re-reads; when
   * that re-read fails too, the exception leaves {@code AggregateAuthority.commit} and {@code AggregateRestore.commit}
   * discards the staged room, although the CAS may have applied; the source, reading the aggregate, then sees it
   * committed and hands the room over to a target that no longer has it.
   */
  RUNTIME_DISCARDS_WHEN_REREAD_FAILS,
  /**
   * toolkit-core as written: past relay-ready the staged saved work and the relayed hold are dropped without an
   * answer when the target gives the room up ({@code AggregateRestore.discard} after a CAS that did not apply, the
   * arrival's expiry in {@code AggregateMoves.onPrepare}, a relay that finds no staging), and the source's
   * {@code abandon} refuses only what is still in its mailboxes.
   */
  RUNTIME_DISCARD_DROPS_RELAYED_WORK,
  /** Broken: every member's own row is flipped to the target when relay-ready is accepted, before the CAS. */
  MEMBERS_FLIPPED_BEFORE_CAS,
  /** Broken: the seal leaves the last member out of the participant inventory (and out of the payload). */
  MEMBER_LEFT_OUT_OF_INVENTORY,
  /** Broken: the seal does not wait for a join that was approved and is still arriving. */
  SEAL_IGNORES_ARRIVING_JOIN,
  /** Broken: joins are admitted while the room is sealed. */
  JOIN_ADMITTED_WHILE_SEALED,
  /** Broken: when the commit's answer does not come, the source restores the room instead of abandoning it. */
  SOURCE_RESTORED_AFTER_RELAY_READY,
  /** Broken: the target opens its staged room when the relay arrives, before its CAS. */
  TARGET_OPENS_BEFORE_CAS,
  /** Broken: the relay leaves out the ingress hold of the last participant. */
  HOLD_DROPPED_FOR_ONE_PARTICIPANT,
  /** Broken: the restore puts the ingress hold ahead of the captured queue. */
  RESTORE_HOLD_BEFORE_CAPTURED
}
