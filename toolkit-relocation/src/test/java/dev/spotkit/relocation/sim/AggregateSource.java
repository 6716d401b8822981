package dev.spotkit.relocation.sim;

import dev.spotkit.relocation.wire.ChunkPlan;
import dev.spotkit.relocation.wire.EnvelopeEntries;
import dev.spotkit.relocation.wire.ObjectIdentity;
import dev.spotkit.relocation.wire.ParticipantInventory;
import dev.spotkit.relocation.wire.RelocationEnvelope;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.relocation.wire.RelocationId;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The source half of the aggregate move, following toolkit-core's {@code AggregateMoves.move} and
 * {@code AggregateSeal} step for step: the intent on the room's gate (no seal while a join is arriving, retried until
 * the permit wait ends), the seal at a turn boundary (joins and leaves refused, every participant's mailbox closed,
 * its queue captured), capture and the inventory in the Location Store, command 54 and the chunks as one call; on a
 * failure before relay-ready command 57 and the restore of the whole room; after relay-ready the hold taken, command
 * 56 as a call, then the hand-over (Message Follow on the move's connection) or, when the commit's answer did not
 * come and the store does not show the commit, the abandon (typed errors, no restore).
 */
final class AggregateSource {
  private final AggregateWorld w;
  AggregateWorld.Phase phase = AggregateWorld.Phase.IDLE;
  boolean sealedRoom;
  long giveUpAt;
  List<String> inventory = List.of();
  final Map<String, List<Long>> captured = new HashMap<>();
  String aggregateId = "";
  String root = "";
  int sealedVersion;
  long moveConn;
  AggregateWorld.Call pending;
  long nextCorr = 1;
  boolean holdTaken;
  final List<Long> relayed = new ArrayList<>();
  long followEnds;
  boolean captureFailed;

  AggregateSource(final AggregateWorld w) {
    this.w = w;
  }

  /** {@code AggregateMoves.relocate}: the operator's move; the intent goes on the room's control lane. */
  void startMove() {
    phase = AggregateWorld.Phase.INTENT;
    giveUpAt = w.now + AggregateWorld.PERMIT_WAIT_MS;
    w.gateControl.add(this::intent);
    w.trace(() -> "move requested");
  }

  /** {@code AggregateSeal.intent}: at a turn boundary; while a join is arriving, no seal, retry later. */
  private void intent() {
    if (!w.admittedJoins.isEmpty() && w.variant != AggregateVariant.SEAL_IGNORES_ARRIVING_JOIN) {
      w.checker.mark("seal_waited_for_arriving_join");
      if (w.now < giveUpAt) {
        w.timer(w.now + AggregateWorld.PERMIT_RETRY_MS, () -> w.gateControl.add(this::intent));
      } else {
        phase = AggregateWorld.Phase.NOT_SEALED;
        inventory = List.of();
        w.checker.mark("seal_gave_up");
      }
      return;
    }
    if (!w.admittedJoins.isEmpty()) {
      w.checker.mark("sealed_with_join_arriving");
    }
    sealNow();
  }

  /** {@code sealAtBoundary} and {@code drainAtBoundary}: joins refused, every mailbox closed, queues captured. */
  private void sealNow() {
    sealedRoom = true;
    phase = AggregateWorld.Phase.SEALED;
    final List<String> keys = new ArrayList<>(w.membership);
    if (w.variant == AggregateVariant.MEMBER_LEFT_OUT_OF_INVENTORY && !keys.isEmpty()) {
      keys.remove(keys.size() - 1);
    }
    keys.add(AggregateWorld.SPOT);
    inventory = ParticipantInventory.of(keys).keys();
    w.checker.sealed(inventory);
    if (inventory.stream().anyMatch(w.racedJoins::contains)) {
      w.checker.mark("seal_includes_join_that_raced_it");
    }
    for (final String k : inventory) {
      final AggregateWorld.Cell c = w.source.get(k);
      c.open = false;
      captured.put(k, new ArrayList<>(c.queue));
      c.queue.clear();
    }
    aggregateId = Long.toHexString(w.sc.seed()) + "-agg";
    w.trace(() -> "sealed " + inventory + " captured " + captured);
    w.driver.add(this::captureAndStore);
  }

  /** {@code captureAndStore}: the adapters, then the inventory in the store; the envelope. */
  private void captureAndStore() {
    if (w.sc.pCaptureFail() && !captureFailed) {
      captureFailed = true;
      w.checker.mark("capture_failed");
      failBeforeReady("capture of " + inventory.get(w.rnd.nextInt(inventory.size())) + " threw");
      return;
    }
    root = "root-" + String.join(",", inventory).hashCode();
    w.submitStore(new AggregateWorld.StoreOp("seal write", f -> {
      if (f.equals("transient")) {
        w.driver.add(() -> failBeforeReady("store seal failed"));
        return;
      }
      w.store.seal(root, inventory);
      sealedVersion = w.store.version;
      w.driver.add(this::ship);
    }));
  }

  private byte[] payload() {
    final ParticipantInventory inv = ParticipantInventory.of(inventory);
    final List<EnvelopeEntries.ApplicationState> states = new ArrayList<>();
    final List<EnvelopeEntries.SavedWork> saved = new ArrayList<>();
    for (final String k : inv.keys()) {
      final long pid = inv.participantId(k);
      states.add(new EnvelopeEntries.ApplicationState(pid, ByteBuffer.allocate(4).putInt(w.source.get(k).state)
          .array()));
      long order = 0;
      for (final long id : captured.get(k)) {
        saved.add(new EnvelopeEntries.SavedWork(pid, order++, w.msgs.get(id).record()));
      }
    }
    return RelocationEnvelopeCodec.encode(new RelocationEnvelope(new RelocationId(7, w.sc.seed() | 1),
        new ObjectIdentity.UserSpot("room", 1, 1), 1, states, saved, List.of(), List.of()));
  }

  /** {@code AggregateMoves.ship}: command 54 as a call, then the chunks on the same connection. */
  private void ship() {
    if (!w.connUp) {
      failBeforeReady("no connection to the target");
      return;
    }
    phase = AggregateWorld.Phase.SHIPPING;
    final ChunkPlan plan = ChunkPlan.of(payload(), w.sc.chunkBytes());
    moveConn = w.conn;
    pending = new AggregateWorld.Call(nextCorr++, w.conn, w.now + w.sc.stepTimeoutMs());
    w.aToB.add(new AggregateWorld.Prepare(w.conn, pending.corr(), aggregateId, sealedVersion, root, inventory.size(),
        plan.totalLength(), plan.chunkCount(), plan.checksumCrc32c()));
    for (long i = 0; i < plan.chunkCount(); i++) {
      w.aToB.add(new AggregateWorld.Chunk(w.conn, aggregateId, i, plan.chunk(i)));
    }
    w.trace(() -> "shipped " + plan.totalLength() + " bytes in " + plan.chunkCount() + " chunks on connection "
        + w.conn);
  }

  void onReplyFrame(final AggregateWorld.Frame f) {
    if (!(f instanceof AggregateWorld.Reply r) || r.conn() != w.conn) {
      return;
    }
    w.driver.add(() -> {
      if (pending == null || pending.corr() != r.corr()) {
        w.checker.mark("late_reply_ignored");
        return;
      }
      pending = null;
      answered(r.ok(), r.why());
    });
  }

  /** The awaited call ended: its reply, its connection closed, or its step timeout. */
  void answered(final boolean ok, final String why) {
    w.trace(() -> "call answered ok=" + ok + " " + why + " in phase " + phase);
    if (phase == AggregateWorld.Phase.SHIPPING) {
      if (ok) {
        relayReady();
      } else {
        failBeforeReady(why);
      }
    } else if (phase == AggregateWorld.Phase.RELAYING) {
      if (ok) {
        w.gateControl.add(this::handOver);
      } else {
        afterRelayFailure(why);
      }
    }
  }

  /** Before relay-ready: command 57 when a connection is open, then the whole room restored (spec 000 section 8). */
  private void failBeforeReady(final String why) {
    w.trace(() -> "failure before relay-ready: " + why);
    if (w.connUp && !aggregateId.isEmpty()) {
      w.aToB.add(new AggregateWorld.Abort(w.conn, aggregateId));
    }
    phase = AggregateWorld.Phase.RESTORING;
    w.gateControl.add(this::restore);
  }

  /** {@code AggregateSeal.restore}: each captured queue ahead of what the hold kept, mailboxes open, joins again. */
  private void restore() {
    for (final String k : inventory) {
      final AggregateWorld.Cell c = w.source.get(k);
      final List<Long> back = new ArrayList<>(captured.getOrDefault(k, List.of()));
      if (w.variant == AggregateVariant.RESTORE_HOLD_BEFORE_CAPTURED) {
        back.addAll(0, c.queue);
        c.queue.clear();
      }
      c.queue.forEach(back::add);
      c.queue.clear();
      c.queue.addAll(back);
      c.open = true;
    }
    captured.clear();
    sealedRoom = false;
    w.checker.unsealed();
    phase = AggregateWorld.Phase.RESTORED;
    w.checker.mark("restored");
    w.trace(() -> "restored on the source");
  }

  private void relayReady() {
    phase = AggregateWorld.Phase.RELAY_READY;
    if (w.variant == AggregateVariant.MEMBERS_FLIPPED_BEFORE_CAS) {
      for (final String k : inventory) {
        if (!k.equals(AggregateWorld.SPOT)) {
          w.store.pointed.remove(k);
          w.store.ownRows.put(k, AggregateStore.B);
        }
      }
    }
    w.gateControl.add(this::takeHold);
  }

  /** {@code takeHold}: every participant's hold, in arrival order; from here on no restore. */
  private void takeHold() {
    final ParticipantInventory inv = ParticipantInventory.of(inventory);
    final List<EnvelopeEntries.SavedWork> work = new ArrayList<>();
    for (final String k : inv.keys()) {
      final AggregateWorld.Cell c = w.source.get(k);
      long order = 0;
      final boolean drop = w.variant == AggregateVariant.HOLD_DROPPED_FOR_ONE_PARTICIPANT
          && k.equals(inv.keys().get(inv.size() - 1));
      for (final long id : c.queue) {
        if (!drop) {
          work.add(new EnvelopeEntries.SavedWork(inv.participantId(k), order++, w.msgs.get(id).record()));
          relayed.add(id);
        }
      }
      c.queue.clear();
    }
    holdTaken = true; // the room stays sealed for joins and leaves: it is moving away
    w.checker.boundaryAccepted();
    final byte[] stream = RelocationEnvelopeCodec.encode(new RelocationEnvelope(new RelocationId(7, w.sc.seed() | 1),
        new ObjectIdentity.UserSpot("room", 1, 1), 1, List.of(), work, List.of(), List.of()));
    w.trace(() -> "hold taken: " + work.size() + " records");
    w.driver.add(() -> sendRelay(stream));
  }

  /** Command 56 as a call on the move's connection; a closed connection fails the call at once. */
  private void sendRelay(final byte[] stream) {
    phase = AggregateWorld.Phase.RELAYING;
    if (moveConn != w.conn || !w.connUp) {
      captured.values().forEach(ids -> ids.forEach(w.checker::lostInTransport)); // never sent (no retransmission)
      relayed.forEach(w.checker::lostInTransport);
      w.checker.mark("relay_not_sent_connection_closed");
      afterRelayFailure("the move's connection closed");
      return;
    }
    pending = new AggregateWorld.Call(nextCorr++, w.conn, w.now + w.sc.stepTimeoutMs());
    w.aToB.add(new AggregateWorld.Relay(w.conn, pending.corr(), aggregateId, stream));
  }

  /** Past relay-ready the commit's answer did not come: read the aggregate, hand over or abandon. */
  private void afterRelayFailure(final String why) {
    if (w.variant == AggregateVariant.SOURCE_RESTORED_AFTER_RELAY_READY) {
      w.gateControl.add(() -> {
        for (final String k : inventory) {
          w.source.get(k).open = true;
        }
        phase = AggregateWorld.Phase.RESTORED;
      });
      return;
    }
    phase = AggregateWorld.Phase.READING;
    w.checker.mark("commit_answer_missing");
    readAfterFailure();
  }

  private void readAfterFailure() {
    w.submitStore(new AggregateWorld.StoreOp("source read", f -> {
      if (f.equals("transient")) {
        w.retryTimer(w.now + 50, () -> w.driver.add(this::readAfterFailure)); // modelled as a retry (see the report)
        return;
      }
      final AggregateStore.Snapshot s = w.store.read();
      final boolean committed = s.owner().equals(AggregateStore.B) && s.aggregateId().equals(aggregateId);
      w.trace(() -> "source read after failure: committed=" + committed);
      w.gateControl.add(committed ? this::handOver : this::abandon);
    }));
  }

  /** {@code handOver}: every cell GONE, its hold followed to the target on the move's connection, then later work. */
  private void handOver() {
    followEnds = w.now + w.sc.followMs();
    for (final String k : inventory) {
      final AggregateWorld.Cell c = w.source.get(k);
      c.gone = true;
      while (!c.queue.isEmpty()) {
        follow(k, c.queue.poll());
      }
    }
    phase = AggregateWorld.Phase.HANDED_OVER;
    w.checker.mark("handed_over");
    w.trace(() -> "handed over");
  }

  void follow(final String key, final long id) {
    if (moveConn == w.conn && w.connUp) {
      w.aToB.add(new AggregateWorld.Follow(w.conn, key, id));
      w.checker.mark("followed");
    } else {
      w.checker.failedTyped(id); // sendOn a closed connection: the request fails, a one-way message is a dead letter
      w.checker.mark("follow_failed_closed_connection");
    }
  }

  /** {@code abandon}: past relay-ready, not committed: held and later work refused with Unavailable. */
  private void abandon() {
    for (final String k : inventory) {
      final AggregateWorld.Cell c = w.source.get(k);
      c.refusing = true;
      while (!c.queue.isEmpty()) {
        w.checker.failedTyped(c.queue.poll());
      }
    }
    phase = AggregateWorld.Phase.ABANDONED;
    w.checker.mark("abandoned");
    w.trace(() -> "abandoned");
  }
}
