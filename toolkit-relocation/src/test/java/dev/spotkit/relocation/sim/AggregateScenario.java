package dev.spotkit.relocation.sim;

import java.util.SplittableRandom;

/**
 * Everything a seed decides before the first step of an aggregate run (swarm testing, STYLE.md rule 11): the room's
 * size, the traffic, the joins and leaves around the seal, and which faults may happen.
 *
 * @param seed the seed.
 * @param members members of the room at the start, 1..16.
 * @param joiners actors that ask to join the room during the run.
 * @param leavers members that ask to leave the room during the run.
 * @param senders clients writing to the room and to members, 1..4.
 * @param clientMessages messages the clients send during the run.
 * @param savedWork messages queued before the move starts (they are the captured queues).
 * @param chunkBytes bytes per payload chunk (small, so chunks are many).
 * @param stepTimeoutMs how long the source waits for the relay-ready reply and for the commit's answer (the runtime's
 *     STEP_TIMEOUT, scaled to the simulated clock); the target drops an unfinished arrival after twice this.
 * @param followMs the Message Follow duration on the source after the hand-over.
 * @param pLoss probability weight of a connection loss per step.
 * @param maxLosses connection losses allowed in the run.
 * @param pStoreTransient probability a store call fails cleanly (nothing applied, typed error).
 * @param pStoreIndeterminate probability a CAS answer is lost (applied or not, maybe applied later).
 * @param pCorrupt whether one payload chunk is corrupted in flight (CRC-32C mismatch at the target).
 * @param pRestoreFail whether one participant's restore throws on the target (factory or adapter).
 * @param pCaptureFail whether one participant's capture throws on the source (adapter).
 * @param killTarget 0 no kill, 1 kill the target before its relay-ready reply, 2 after it (before or after the CAS).
 * @param laneStallMs how long a stall of the source gate or the target's task lane lasts (0: never).
 * @param healthy no faults at all: the move must commit and every message must run (liveness).
 */
public record AggregateScenario(long seed, int members, int joiners, int leavers, int senders, int clientMessages,
    int savedWork, int chunkBytes, long stepTimeoutMs, long followMs, double pLoss, int maxLosses,
    double pStoreTransient, double pStoreIndeterminate, boolean pCorrupt, boolean pRestoreFail,
    boolean pCaptureFail, int killTarget, long laneStallMs, boolean healthy) {

  /**
   * Draws a scenario from a seed.
   *
   * @param seed the seed.
   * @return the scenario.
   */
  public static AggregateScenario draw(final long seed) {
    final SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
    final boolean faulty = r.nextInt(4) != 0; // a quarter of the seeds run without faults (liveness)
    final int members = 1 + r.nextInt(16);
    return new AggregateScenario(seed, members, r.nextInt(4), r.nextInt(Math.min(members, 3) + 1),
        1 + r.nextInt(4), 10 + r.nextInt(50), r.nextInt(12), 16 + r.nextInt(400),
        faulty && r.nextInt(3) == 0 ? 300 + r.nextInt(2_000) : 6_000 + r.nextInt(6_000),
        r.nextInt(3) == 0 ? 50 + r.nextInt(400) : 2_000 + r.nextInt(4_000),
        faulty ? r.nextDouble() * 0.03 : 0, faulty ? r.nextInt(3) : 0,
        faulty ? r.nextDouble() * 0.25 : 0, faulty ? r.nextDouble() * 0.4 : 0,
        faulty && r.nextInt(15) == 0, faulty && r.nextInt(15) == 0, faulty && r.nextInt(20) == 0,
        faulty && r.nextInt(3) == 0 ? 1 + r.nextInt(2) : 0,
        r.nextInt(3) == 0 ? 200 + r.nextInt(2_000) : 0, !faulty);
  }
}
