package dev.spotkit.core.mesh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The dialer's side of a duplicate rejection: wait for the peer's connection, connect again, or fail. */
class PeerTableTest {
  private static final NodeRid SELF = new NodeRid(0x20);
  private static final NodeRid PEER = new NodeRid(0x10);

  @Test
  void aDialRefusedForAConnectionThePeerStillThinksOpenConnectsAgainThenFailsWhenThePeerNeverDials() {
    final PeerTable table = new PeerTable(SELF);
    final PeerTable.Dial dial = (PeerTable.Dial) table.connectOrDial(PEER);
    for (int i = 0; i < 4; i++) {
      assertThat(table.outgoingDuplicate(dial)).as("rejection %d: wait for the peer", i + 1).isTrue();
      assertThat(table.redialAfterPeerSilence(dial, 4, "silent")).as("redial %d", i + 1).isTrue();
      assertThat(dial.future).isNotDone();
      assertThat(table.connectOrDial(PEER)).as("callers meanwhile share the same dial").isSameAs(dial.future);
    }
    assertThat(table.outgoingDuplicate(dial)).isTrue();
    assertThat(table.redialAfterPeerSilence(dial, 4, "silent")).isFalse();
    assertThat(dial.future).isCompletedExceptionally();
    try {
      dial.future.get();
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining(
          "HANDSHAKE_TIMEOUT").hasMessageContaining("silent");
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aDialThatEndedMeanwhileIsNotDialedAgain() {
    final PeerTable table = new PeerTable(SELF);
    final PeerTable.Dial dial = (PeerTable.Dial) table.connectOrDial(PEER);
    assertThat(table.outgoingDuplicate(dial)).isTrue();
    table.dialFailed(dial, CloseReason.TRANSPORT_CLOSED, "closed");
    assertThat(table.redialAfterPeerSilence(dial, 4, "silent")).isFalse();
    final PeerTable.Dial notWaiting = (PeerTable.Dial) table.connectOrDial(PEER);
    assertThat(table.redialAfterPeerSilence(notWaiting, 4, "silent")).as("not rejected: nothing to redial")
        .isFalse();
    assertThat(notWaiting.future).isNotDone();
  }
}
