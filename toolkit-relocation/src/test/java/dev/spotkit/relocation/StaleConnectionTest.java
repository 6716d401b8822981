package dev.spotkit.relocation;

import static dev.spotkit.relocation.Fixtures.ID;
import static dev.spotkit.relocation.Fixtures.chunk;
import static dev.spotkit.relocation.Fixtures.only;
import static dev.spotkit.relocation.Fixtures.readyTarget;
import static dev.spotkit.relocation.Fixtures.restore;
import static dev.spotkit.relocation.Fixtures.send;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Frames read late from a connection the transfer already left, and older attempts read late: they never replace
 * the newer batch, take chunk attribution back, or supersede the newer attempt (spec 001 sections 4.3, 4.4, 5.1,
 * 11). Each test failed on the target before the connection-recency rule.
 */
class StaleConnectionTest {

  /**
   * Spec 001 section 4.4 / REL-13: a retransmitted batch on a new connection wholly replaces the partial span and
   * each record is staged exactly once; section 5.1: no order across connections, so a frame still buffered on
   * the broken connection (1) can be read after the new connection's (2) batch started. Before the fix, TargetUnit
   * treated any connection change as "a new batch" and flipped the span back to the dead connection, silently
   * dropping record 3 of the real batch; the cutover on 2 then mismatched and the fallback merged [4] only.
   */
  @Test
  void staleRelayFromTheBrokenConnectionMustNotWipeTheRetransmittedBatch() {
    final List<TargetAction> out = new ArrayList<>();
    final TargetUnits units = readyTarget(List.of(), out);
    out.clear();
    out.addAll(units.handle(new TargetEvent.RelayArrived(ID, 1, send(3)))); // old connection, partial
    out.addAll(units.handle(new TargetEvent.RelayArrived(ID, 2, send(3)))); // retransmitted batch [3, 4]
    out.addAll(units.handle(new TargetEvent.RelayArrived(ID, 2, send(4))));
    out.addAll(units.handle(new TargetEvent.RelayArrived(ID, 1, send(4)))); // late frame read off the dead socket
    out.addAll(units.handle(new TargetEvent.CutoverArrived(ID, 2, 2, RelayChecksum.of(List.of(send(3), send(4))))));
    out.addAll(units.handle(new TargetEvent.ClockAdvanced(1_000)));
    final List<Action.RunCas> cas = only(out, Action.RunCas.class);
    assertThat(cas).hasSize(1);
    out.addAll(units.handle(new TargetEvent.CasAnswered(ID, cas.getFirst().requestId(),
        TargetEvent.CasOutcome.APPLIED)));
    final List<Message> failed = only(out, Action.FailMessage.class).stream().map(Action.FailMessage::message)
        .toList();
    final List<Message> merged = only(out, Action.MergeBacklog.class).getFirst().preBoundary();
    // Expected: the verified batch [3, 4] from connection 2 is staged (cutover matches), nothing silently lost.
    assertThat(Fixtures.codes(out)).doesNotContain("cutover_mismatch");
    assertThat(merged).containsExactly(send(3), send(4));
  }

  /**
   * Spec 001 sections 3, 4.3, 5.1 / REL-09: a repeated identical Restore uses the existing progress. A duplicate
   * command 40 read off the broken connection 1 after the restatement on connection 2 must not move chunk
   * attribution back to the dead connection (before the fix every chunk resent on 2 was a stray_chunk and the unit
   * failed at the Restore deadline).
   */
  @Test
  void staleRestoreFromTheBrokenConnectionMustNotStealChunkAttribution() {
    final byte[] payload = "0123456789".getBytes(StandardCharsets.US_ASCII);
    final TargetUnits units = new TargetUnits(Fixtures.SETTINGS, 0);
    final List<TargetAction> out = new ArrayList<>();
    out.addAll(units.handle(restore(ID, payload, 3, 2, 10_000))); // the source's resend on connection 2
    out.addAll(units.handle(restore(ID, payload, 3, 1, 10_000))); // the original, buffered on dead connection 1
    out.addAll(units.handle(chunk(ID, 2, 0, "0123".getBytes(StandardCharsets.US_ASCII))));
    out.addAll(units.handle(chunk(ID, 2, 1, "4567".getBytes(StandardCharsets.US_ASCII))));
    out.addAll(units.handle(chunk(ID, 2, 2, "89".getBytes(StandardCharsets.US_ASCII))));
    assertThat(only(out, Action.RunRestore.class)).as("assembly from the live connection completes").hasSize(1);
  }
}
