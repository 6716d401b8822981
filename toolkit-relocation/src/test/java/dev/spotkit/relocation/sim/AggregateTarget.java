package dev.spotkit.relocation.sim;

import dev.spotkit.relocation.wire.ChunkPlan;
import dev.spotkit.relocation.wire.EnvelopeEntries;
import dev.spotkit.relocation.wire.ParticipantInventory;
import dev.spotkit.relocation.wire.RelocationEnvelope;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.relocation.wire.WireFormatException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The target half of the aggregate world, following toolkit-core's {@code AggregateMoves} (target handlers) and
 * {@code AggregateRestore}: command 54 opens an arrival, chunks fill its buffer, the assembled payload is verified
 * (length, CRC-32C, and the inventory the Location Store holds under the sealed root) and restored into staging cells
 * nobody can find, with admission closed; then the relay-ready reply. Command 56 appends each participant's relayed
 * hold, puts the staging cells where work routed here waits in order ({@code aggregateStaging}), runs the one CAS
 * loop of {@code AggregateAuthority.commit} and, when it committed, opens every cell with its backlog ahead in one
 * step and answers. Command 57 drops an arrival and its staging. The node can be killed: everything here is lost.
 */
final class AggregateTarget {
  private static final int MAX_ATTEMPTS = 3;

  /** One aggregate arriving: manifest, buffer, then its staged room ({@code AggregateMoves.Incoming}). */
  private static final class Incoming {
    final AggregateWorld.Prepare manifest;
    final byte[] buffer;
    long received;
    Map<String, AggregateWorld.Cell> staged;

    Incoming(final AggregateWorld.Prepare manifest) {
      this.manifest = manifest;
      this.buffer = new byte[Math.toIntExact(manifest.total())];
    }
  }

  private final AggregateWorld w;
  private final Map<String, Incoming> incoming = new HashMap<>();
  private final Map<String, AggregateWorld.Cell> open = new LinkedHashMap<>();
  private final Map<String, AggregateWorld.Cell> staging = new LinkedHashMap<>();
  /** The spec's mend: the saved work an arrival held when it expired, failed when its relay comes after all. */
  private final Map<String, List<Long>> expired = new HashMap<>();
  private final Deque<Runnable> lane = new ArrayDeque<>();
  private long stalledUntil;
  private boolean alive = true;
  private int epoch = 1;
  private boolean corrupted;
  private boolean restoreFailed;

  AggregateTarget(final AggregateWorld w) {
    this.w = w;
  }

  boolean alive() {
    return alive;
  }

  boolean busy() {
    if (!lane.isEmpty()) {
      return true;
    }
    for (final AggregateWorld.Cell c : open.values()) {
      if (!c.queue.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  boolean laneReady() {
    return !lane.isEmpty() && w.now >= stalledUntil;
  }

  boolean dispatchable() {
    for (final AggregateWorld.Cell c : open.values()) {
      if (!c.queue.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  boolean dispatching(final String key) {
    final AggregateWorld.Cell c = open.get(key);
    return alive && c != null && c.open;
  }

  int stateOf(final String key) {
    final AggregateWorld.Cell c = open.get(key);
    return c == null ? -1 : c.state;
  }

  void stall(final long until) {
    stalledUntil = until;
  }

  void laneStep() {
    lane.poll().run();
  }

  void dispatchStep() {
    final List<AggregateWorld.Cell> ready = new ArrayList<>();
    for (final AggregateWorld.Cell c : open.values()) {
      if (!c.queue.isEmpty()) {
        ready.add(c);
      }
    }
    final AggregateWorld.Cell c = ready.get(w.rnd.nextInt(ready.size()));
    final long id = c.queue.poll();
    w.checker.handled(AggregateStore.B, c.key, w.msg(id), w.store().ownerOf(c.key));
    c.state++;
    w.trace(() -> "B ran " + id + " of " + c.key);
  }

  /** The process dies: staging, open cells and their queues are gone (spec 000 section 8: no takeover). */
  void kill() {
    alive = false;
    epoch++;
    lane.clear();
    incoming.clear();
    staging.clear();
    if (!open.isEmpty()) {
      w.checker.mark("messages_died_with_target");
    }
  }

  /** Work sent directly to this node: an open cell, a staged cell between the CAS and its open, or NotFound. */
  void offerDirect(final AggregateWorld.Msg m) {
    w.checker.accepted(m.id());
    final AggregateWorld.Cell c = open.containsKey(m.key()) ? open.get(m.key()) : staging.get(m.key());
    if (c == null) {
      w.checker.failedTyped(m.id());
      w.checker.mark("direct_not_found");
      return;
    }
    if (!c.open) {
      w.checker.mark("direct_into_staging");
    }
    c.queue.add(m.id());
  }

  void onFrame(final AggregateWorld.Frame f) {
    if (f.conn() != w.conn) {
      return;
    }
    switch (f) {
      case AggregateWorld.Prepare p -> onPrepare(p);
      case AggregateWorld.Chunk c -> onChunk(c);
      case AggregateWorld.Relay r -> onRelay(r);
      case AggregateWorld.Abort a -> {
        final Incoming gone = incoming.remove(a.aggregateId());
        if (gone != null && gone.staged != null) {
          discard(gone.staged);
        } else if (gone != null) {
          w.checker.mark("abort_raced_prepare"); // the prepare still runs: its staging is never discarded
        }
      }
      case AggregateWorld.Follow fo -> {
        final AggregateWorld.Msg m = w.msg(fo.id());
        final AggregateWorld.Cell c = open.containsKey(m.key()) ? open.get(m.key()) : staging.get(m.key());
        if (c == null) {
          w.checker.failedTyped(m.id());
          w.checker.mark("follow_not_found");
        } else {
          c.queue.add(m.id());
          w.checker.mark("follow_delivered");
        }
      }
      default -> throw new AssertionError("unexpected frame to the target " + f);
    }
  }

  private void onPrepare(final AggregateWorld.Prepare p) {
    final Incoming in = new Incoming(p);
    incoming.put(p.aggregateId(), in);
    final int at = epoch;
    // a source that never sends its chunks or its relay leaves nothing behind here
    w.timer(w.now + 2 * w.sc.stepTimeoutMs(), () -> {
      if (at == epoch && incoming.remove(p.aggregateId(), in) && in.staged != null) {
        w.checker.mark("arrival_expired");
        final List<Long> ids = new ArrayList<>();
        in.staged.values().forEach(c -> ids.addAll(c.queue));
        expired.put(p.aggregateId(), ids);
        discard(in.staged);
      }
    });
    if (p.chunkCount() == 0) {
      lane.add(() -> prepare(in));
    }
  }

  private void onChunk(final AggregateWorld.Chunk c) {
    final Incoming in = incoming.get(c.aggregateId());
    if (in == null) {
      return; // aborted meanwhile
    }
    final byte[] bytes = c.bytes().clone();
    if (w.sc.pCorrupt() && !corrupted && bytes.length > 0) {
      corrupted = true;
      bytes[0] ^= 0x5A;
      w.checker.mark("chunk_corrupted");
    }
    System.arraycopy(bytes, 0, in.buffer, (int) (c.ordinal() * w.sc.chunkBytes()), bytes.length);
    if (++in.received == in.manifest.chunkCount()) {
      lane.add(() -> prepare(in));
    }
  }

  private void reply(final Incoming in, final long corr, final boolean ok, final String why) {
    if (alive && in.manifest.conn() == w.conn && w.connUp) {
      w.bToA.add(new AggregateWorld.Reply(w.conn, corr, ok, why));
    }
  }

  /** {@code AggregateRestore.prepare} on a virtual thread: verify, read the inventory, build the staging. */
  private void prepare(final Incoming in) {
    final int at = epoch;
    final AggregateWorld.Prepare p = in.manifest;
    w.submitStore(new AggregateWorld.StoreOp("target inventory read", f -> {
      if (at != epoch) {
        return;
      }
      if (f.equals("transient")) {
        incoming.remove(p.aggregateId(), in);
        reply(in, p.corr(), false, "Unavailable: inventory read failed");
        return;
      }
      final List<String> keys = w.store().trees.get(p.root());
      final String why = verify(in, keys);
      if (why != null) {
        incoming.remove(p.aggregateId(), in);
        reply(in, p.corr(), false, why);
        return;
      }
      in.staged = build(in.buffer, keys);
      if (in.staged == null) {
        incoming.remove(p.aggregateId(), in);
        reply(in, p.corr(), false, "restore of a participant threw");
        return;
      }
      w.trace(() -> "target staged " + in.staged.keySet() + "; relay-ready");
      reply(in, p.corr(), true, "relay-ready");
    }));
  }

  private static String verify(final Incoming in, final List<String> keys) {
    final AggregateWorld.Prepare p = in.manifest;
    if (in.buffer.length != p.total() || ChunkPlan.crc32c(in.buffer) != p.crc()) {
      return "DataLost: payload checksum";
    }
    if (keys == null || keys.size() != p.count()) {
      return "DataLost: inventory does not verify";
    }
    return null;
  }

  private Map<String, AggregateWorld.Cell> build(final byte[] payload, final List<String> keys) {
    final ParticipantInventory inv = ParticipantInventory.of(keys);
    final RelocationEnvelope env;
    try {
      env = RelocationEnvelopeCodec.decodeOwned(payload.clone(), inv.size(), Integer.MAX_VALUE);
    } catch (final WireFormatException e) {
      return null;
    }
    if (w.sc.pRestoreFail() && !restoreFailed) {
      restoreFailed = true;
      w.checker.mark("restore_failed");
      return null;
    }
    final Map<String, AggregateWorld.Cell> staged = new LinkedHashMap<>();
    for (final String k : inv.keys()) {
      final AggregateWorld.Cell c = new AggregateWorld.Cell(k);
      c.open = false;
      staged.put(k, c);
    }
    for (final EnvelopeEntries.ApplicationState s : env.applicationStates()) {
      staged.get(inv.authorityKey(s.participantId())).state = s.stateBuffer().getInt();
    }
    for (final EnvelopeEntries.SavedWork sw : env.savedWork()) {
      staged.get(inv.authorityKey(sw.participantId())).queue.add(AggregateWorld.idOf(sw.record()));
    }
    return staged;
  }

  private void onRelay(final AggregateWorld.Relay r) {
    final Incoming in = incoming.remove(r.aggregateId());
    if (in == null || in.staged == null) {
      w.checker.mark("relay_without_staging");
      if (w.variant != AggregateVariant.RUNTIME_DISCARD_DROPS_RELAYED_WORK) {
        // Past relay-ready the source keeps no copy: the relayed hold and the expired staging's saved work end with
        // a typed error here (as TargetUnit fails relay after its removal).
        final RelocationEnvelope relay = RelocationEnvelopeCodec.decodeOwned(r.stream(), 1 << 20, Integer.MAX_VALUE);
        relay.savedWork().forEach(sw -> w.checker.failedTyped(AggregateWorld.idOf(sw.record())));
        expired.getOrDefault(r.aggregateId(), List.of()).forEach(w.checker::failedTyped);
      }
      if (alive && r.conn() == w.conn && w.connUp) {
        w.bToA.add(new AggregateWorld.Reply(w.conn, r.corr(), false, "no staged room"));
      }
      return;
    }
    lane.add(() -> commit(in, r));
  }

  /** {@code AggregateRestore.relay} then {@code commit}: hold behind saved work, staging routable, the CAS. */
  private void commit(final Incoming in, final AggregateWorld.Relay r) {
    final ParticipantInventory inv = ParticipantInventory.of(in.staged.keySet());
    final RelocationEnvelope relay = RelocationEnvelopeCodec.decodeOwned(r.stream(), inv.size(), Integer.MAX_VALUE);
    for (final EnvelopeEntries.SavedWork sw : relay.savedWork()) {
      in.staged.get(inv.authorityKey(sw.participantId())).queue.add(AggregateWorld.idOf(sw.record()));
    }
    staging.putAll(in.staged); // from the CAS on, work routed here waits in order
    if (w.variant == AggregateVariant.TARGET_OPENS_BEFORE_CAS) {
      openAll(in.staged);
    }
    casAttempt(in, r.corr(), 0);
  }

  /** One attempt of {@code AggregateAuthority.commit}'s loop: read the aggregate, then the conditional write. */
  private void casAttempt(final Incoming in, final long corr, final int attempt) {
    final int at = epoch;
    if (attempt >= MAX_ATTEMPTS) {
      giveUp(in, corr, "Unavailable: conflicted " + MAX_ATTEMPTS + " times");
      return;
    }
    final AggregateWorld.Prepare p = in.manifest;
    w.submitStore(new AggregateWorld.StoreOp("target aggregate read", f -> {
      if (at != epoch) {
        return;
      }
      if (f.equals("transient")) {
        giveUp(in, corr, "Unavailable: store read failed");
        return;
      }
      final AggregateStore.Snapshot s = w.store().read();
      if (s.version() != p.sealedVersion()) {
        giveUp(in, corr, "Changed: the aggregate is not at the sealed version");
        return;
      }
      write(in, corr, attempt);
    }));
  }

  /** The aggregate record this move's CAS writes: the target as owner, this AggregateId. */
  private static boolean ownCommit(final AggregateStore.Snapshot s, final AggregateWorld.Prepare p) {
    return s.owner().equals(AggregateStore.B) && s.aggregateId().equals(p.aggregateId());
  }

  private void write(final Incoming in, final long corr, final int attempt) {
    final int at = epoch;
    final AggregateWorld.Prepare p = in.manifest;
    w.submitStore(new AggregateWorld.StoreOp("target aggregate CAS", f -> {
      final Runnable apply = () -> w.store().commit(p.sealedVersion(), p.aggregateId(), p.root(), AggregateStore.B);
      if (f.equals("transient")) {
        if (at == epoch) {
          giveUp(in, corr, "Unavailable: CAS failed");
        }
        return;
      }
      if (f.equals("indeterminate")) {
        final int how = w.rnd.nextInt(3); // applied, not applied, or applied later
        if (how == 0) {
          apply.run();
        } else if (how == 2) {
          w.checker.mark("cas_applies_late");
          w.submitLate(apply);
        }
        w.checker.mark("cas_indeterminate");
        if (at == epoch) {
          reRead(in, corr, attempt);
        }
        return;
      }
      final boolean applied = w.store().commit(p.sealedVersion(), p.aggregateId(), p.root(), AggregateStore.B);
      if (at != epoch) {
        return; // the process died: the write may have applied, nobody hears the answer
      }
      if (applied) {
        committed(in, corr);
      } else {
        casAttempt(in, corr, attempt + 1);
      }
    }));
  }

  /** Spec 002 section 10: never guess, re-read; this move's record means committed, anything else another try. */
  private void reRead(final Incoming in, final long corr, final int attempt) {
    final int at = epoch;
    final AggregateWorld.Prepare p = in.manifest;
    w.submitStore(new AggregateWorld.StoreOp("target re-read", f -> {
      if (at != epoch) {
        return;
      }
      if (f.equals("transient")) {
        if (w.variant == AggregateVariant.RUNTIME_DISCARDS_WHEN_REREAD_FAILS) {
          // AggregateAuthority.write's re-read throws; AggregateRestore.commit discards: the CAS may have applied
          giveUp(in, corr, "Unavailable: re-read after an unknown CAS outcome failed");
        } else {
          w.checker.mark("reread_retried");
          w.retryTimer(w.now + 20, () -> {
            if (at == epoch) {
              lane.add(() -> reRead(in, corr, attempt)); // never guess: read again
            }
          });
        }
        return;
      }
      final AggregateStore.Snapshot s = w.store().read();
      if (s.version() == p.sealedVersion() + 1 && ownCommit(s, p)) {
        committed(in, corr);
      } else {
        casAttempt(in, corr, attempt + 1);
      }
    }));
  }

  private void giveUp(final Incoming in, final long corr, final String why) {
    w.checker.mark("commit_gave_up");
    w.trace(() -> "target commit gave up: " + why + "; staging discarded");
    if (w.variant != AggregateVariant.RUNTIME_DISCARD_DROPS_RELAYED_WORK) {
      for (final AggregateWorld.Cell c : in.staged.values()) {
        c.queue.forEach(w.checker::failedTyped); // past relay-ready the staging holds the only copies: Unavailable
      }
    }
    discard(in.staged);
    reply(in, corr, false, why);
  }

  private void committed(final Incoming in, final long corr) {
    openAll(in.staged);
    w.trace(() -> "target committed and opened " + in.staged.keySet());
    reply(in, corr, true, "committed");
  }

  /** {@code AggregateRestore.open}: registered, each mailbox opened with its backlog ahead, in one step. */
  private void openAll(final Map<String, AggregateWorld.Cell> staged) {
    for (final AggregateWorld.Cell c : staged.values()) {
      c.open = true;
      open.put(c.key, c);
      staging.remove(c.key, c);
    }
  }

  /** {@code AggregateRestore.discard}: nothing registered, nothing runs. */
  private void discard(final Map<String, AggregateWorld.Cell> staged) {
    for (final AggregateWorld.Cell c : staged.values()) {
      staging.remove(c.key, c);
      if (open.remove(c.key, c)) {
        c.open = false;
      }
      for (final long id : c.queue) {
        if (w.msg(id).viaTarget()) {
          w.checker.failedTyped(id); // direct work in the staging: its sender gets Unavailable
        }
      }
      c.queue.clear();
    }
  }
}
