package dev.spotkit.relocation.sim;

import java.util.SplittableRandom;

/**
 * Everything a seed decides before the first step (swarm testing, STYLE.md rule 11): sizes, rates and faults.
 *
 * @param seed the seed.
 * @param savedWork messages in the source queue at capture.
 * @param stateBytes opaque application-state bytes in the payload.
 * @param chunkBytes the advertised receive chunk limit (so chunks are small and many).
 * @param budgetBytes the per-peer in-flight budget, 0 disabled.
 * @param clientMessages messages clients send during the run.
 * @param pLoss probability per step of a connection loss (at most {@code maxLosses}).
 * @param maxLosses connection losses allowed in the run.
 * @param pStoreTransient probability a store op answers with a retryable error.
 * @param pStoreLost probability a store op's answer is lost (indeterminate).
 * @param pClockJump probability a clock step is a jump of up to 1,500 ms.
 * @param pCorrupt probability the payload is corrupted in flight once (checksum mismatch).
 * @param pRestoreFail probability the target's Restore fails.
 * @param pStale probability a third party changes the owner before the target's CAS.
 * @param pOther probability an other-object frame is queued between frames.
 * @param boundSession whether a session binding is sealed.
 * @param restoreValidityMs Restore validity from the start, ms.
 * @param backoffMs store retry backoff, ms.
 * @param healthy no faults at all: the run must finish on the ordered path (liveness).
 * @param pStaleRead probability, per connection loss, that frames still buffered on the old connection are read
 *     late, interleaved with the newer connection's frames (section 5.1 orders frames only within one connection).
 * @param pDuplicateCutover probability a sent cutover is delivered a second time later on its connection.
 * @param pEarlyDirect probability a client message goes directly to the target before its CAS (section 4.3).
 * @param laneStallMs how long the target node's relocation lane stalls at a time, ms (0: never): "the node's
 *     executor is seconds behind". Inputs keep arriving (stamped by the pump) while the lane runs nothing; no
 *     reorder and no cutover-wait fallback may come from this local queueing (spec 001 section 4.4).
 */
public record Scenario(long seed, int savedWork, int stateBytes, int chunkBytes, long budgetBytes,
    int clientMessages, double pLoss, int maxLosses, double pStoreTransient, double pStoreLost, double pClockJump,
    double pCorrupt, double pRestoreFail, double pStale, double pOther, boolean boundSession,
    long restoreValidityMs, long backoffMs, boolean healthy, double pStaleRead, double pDuplicateCutover,
    double pEarlyDirect, long laneStallMs) {

  /**
   * Draws a scenario from a seed.
   *
   * @param seed the seed.
   * @return the scenario.
   */
  public static Scenario draw(final long seed) {
    final SplittableRandom r = new SplittableRandom(seed);
    final boolean faulty = r.nextInt(4) != 0; // A quarter of the seeds run on a healthy core (liveness).
    final int chunk = (faulty ? 1 : 64) + r.nextInt(600);
    return new Scenario(seed, r.nextInt(12), r.nextInt(3000), chunk,
        r.nextBoolean() ? 0 : chunk * (1 + r.nextInt(6)), 5 + r.nextInt(40),
        faulty ? r.nextDouble() * 0.02 : 0, faulty ? r.nextInt(3) : 0,
        faulty ? r.nextDouble() * 0.4 : 0, faulty ? r.nextDouble() * 0.3 : 0, faulty ? r.nextDouble() * 0.1 : 0,
        faulty && r.nextInt(20) == 0 ? 1 : 0, faulty && r.nextInt(20) == 0 ? 1 : 0,
        faulty && r.nextInt(25) == 0 ? 1 : 0, r.nextDouble() * 0.5, r.nextBoolean(),
        1_500 + r.nextInt(6_000), r.nextInt(3) * 25L, !faulty,
        // Drawn after the older fields, so those keep their values per seed.
        faulty && r.nextBoolean() ? 0.3 + r.nextDouble() * 0.7 : 0, faulty && r.nextInt(4) == 0 ? 0.5 : 0,
        r.nextInt(3) == 0 ? r.nextDouble() * 0.3 : 0,
        r.nextInt(3) == 0 ? 500 + r.nextInt(4_000) : 0);
  }
}
