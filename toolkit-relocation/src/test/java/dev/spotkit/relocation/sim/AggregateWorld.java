package dev.spotkit.relocation.sim;

import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.relocation.wire.ChunkPlan;
import dev.spotkit.relocation.wire.FrozenRecord;
import dev.spotkit.relocation.wire.OperationId;
import dev.spotkit.relocation.wire.ParticipantInventory;
import dev.spotkit.relocation.wire.RecordBody;
import dev.spotkit.relocation.wire.RecordSource;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.TargetSpot;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A deterministic world for the move of one SpotWide User Spot with its members (spec 000 section 7): a source node
 * (the room's gate, which its members share, and the move's driver), a target node (event loop, task lane, gate) that
 * can be killed, one ordered connection between them (replaced on loss), a linearizable {@link AggregateStore} whose
 * CAS answers can be lost or applied late, clients writing to the room and to members, and joiners and leavers around
 * the seal. Everything random comes from the seed; the {@link AggregateChecker} watches after every step.
 *
 * <p>The move follows toolkit-core's {@code AggregateMoves}, {@code AggregateSeal} and {@code AggregateRestore}
 * step for step (see {@link AggregateTarget} for the target half). The payload is the real relocation-envelope-v1
 * ({@link RelocationEnvelopeCodec}) over the real {@link ParticipantInventory}, split by the real {@link ChunkPlan}
 * with its CRC-32C; each message is a real {@link FrozenRecord}. The coordination itself is modelled here.
 */
public final class AggregateWorld {
  static final String SPOT = "spot:room";
  static final int MAX_STEPS = 6_000;
  static final long PERMIT_WAIT_MS = 10_000;
  static final long PERMIT_RETRY_MS = 20;
  private static final int MAX_STALLS = 2;

  /** A client message: who sent it, to which participant, on which path, its place in that path's order. */
  record Msg(long id, int sender, String key, boolean viaTarget, int seq, FrozenRecord record) {
  }

  /** A participant's cell on one node: its mailbox (closed = held, no handler runs) and its application state. */
  static final class Cell {
    final String key;
    final Deque<Long> queue = new ArrayDeque<>();
    boolean open = true;
    boolean gone;
    boolean refusing;
    int state;

    Cell(final String key) {
      this.key = key;
    }

    boolean dispatching() {
      return open && !gone && !refusing;
    }
  }

  /** A frame on the connection. */
  sealed interface Frame {
    long conn();
  }

  record Prepare(long conn, long corr, String aggregateId, int sealedVersion, String root, int count, long total,
      long chunkCount, long crc) implements Frame {
  }

  record Chunk(long conn, String aggregateId, long ordinal, byte[] bytes) implements Frame {
  }

  record Relay(long conn, long corr, String aggregateId, byte[] stream) implements Frame {
  }

  record Abort(long conn, String aggregateId) implements Frame {
  }

  record Follow(long conn, String key, long id) implements Frame {
  }

  record Reply(long conn, long corr, boolean ok, String why) implements Frame {
  }

  /** The move's phases on the source, as {@code AggregateMoves.move} walks them. */
  enum Phase { IDLE, INTENT, SEALED, SHIPPING, RESTORING, RESTORED, RELAY_READY, RELAYING, READING, HANDED_OVER,
    ABANDONED, NOT_SEALED }

  /** A call awaiting its reply: the connection it went on and when the source stops waiting. */
  record Call(long corr, long conn, long deadline) {
  }

  /** A pending Location Store call; {@code run} applies it and answers (or not) as the fault says. */
  record StoreOp(String what, Consumer<String> run) {
  }

  /** A timer; an essential one (a retry) keeps the world from resting until it fired. */
  private record Timer(long at, Runnable task, boolean essential) {
  }

  final AggregateScenario sc;
  final AggregateVariant variant;
  final SplittableRandom rnd;
  final AggregateChecker checker = new AggregateChecker();
  final AggregateStore store = new AggregateStore();
  final AggregateTarget target;
  long now;
  int steps;
  private final boolean tracing;
  private final Deque<String> traceLines = new ArrayDeque<>();

  // clients
  final Map<Long, Msg> msgs = new HashMap<>();
  private final Map<String, Integer> nextSeq = new HashMap<>();
  private final List<Deque<Long>> toSource = new ArrayList<>();
  private final List<Deque<Long>> toTarget = new ArrayList<>();
  private final boolean[] knowsTarget;
  private int sent;
  private long nextId = 1;

  // the source node
  final Set<String> membership = new LinkedHashSet<>();
  final Map<String, Cell> source = new LinkedHashMap<>();
  private final List<String> joiners = new ArrayList<>();
  private final Map<String, Integer> joinTries = new HashMap<>();
  final Set<String> admittedJoins = new LinkedHashSet<>();
  private int leavesLeft;
  final Deque<Runnable> gateControl = new ArrayDeque<>();
  final Deque<Runnable> driver = new ArrayDeque<>();
  private long gateStalledUntil;
  private int stalls;
  private final int moveStartStep;
  private final Set<String> keysEverSeen = new LinkedHashSet<>();
  /** Joins that landed while the seal's intent waited for them. */
  final Set<String> racedJoins = new LinkedHashSet<>();

  /** The move's source half. */
  final AggregateSource move = new AggregateSource(this);

  // the connection and the store
  long conn = 1;
  boolean connUp = true;
  private int losses;
  final Deque<Frame> aToB = new ArrayDeque<>();
  final Deque<Frame> bToA = new ArrayDeque<>();
  private final Deque<StoreOp> storeOps = new ArrayDeque<>();
  /** Target writes whose answer was lost and that apply later (at the latest before the target's next call). */
  private final List<Runnable> lateWrites = new ArrayList<>();
  private final List<Timer> timers = new ArrayList<>();

  /**
   * Creates a world.
   *
   * @param sc the scenario.
   * @param variant the runtime modelled (the spec's, toolkit-core's as written, or a broken one).
   * @param tracing whether to keep a readable trace of the last steps (for a failing seed).
   */
  public AggregateWorld(final AggregateScenario sc, final AggregateVariant variant, final boolean tracing) {
    this.sc = sc;
    this.variant = variant;
    this.tracing = tracing;
    this.rnd = new SplittableRandom(sc.seed() * 0x9E3779B97F4A7C15L + 3);
    this.target = new AggregateTarget(this);
    this.knowsTarget = new boolean[sc.senders()];
    for (int s = 0; s < sc.senders(); s++) {
      toSource.add(new ArrayDeque<>());
      toTarget.add(new ArrayDeque<>());
    }
    source.put(SPOT, new Cell(SPOT));
    keysEverSeen.add(SPOT);
    for (int i = 1; i <= sc.members(); i++) {
      final String m = "actor:m" + (i < 10 ? "0" : "") + i;
      join(m);
    }
    for (int i = 1; i <= sc.joiners(); i++) {
      joiners.add("actor:j" + i);
    }
    leavesLeft = sc.leavers();
    for (int i = 0; i < sc.savedWork(); i++) {
      final long id = newMessage(rnd.nextInt(sc.senders()), pickKey(), false);
      offerAtSource(id);
    }
    moveStartStep = 1 + rnd.nextInt(40);
  }

  private void join(final String m) {
    membership.add(m);
    source.put(m, new Cell(m));
    keysEverSeen.add(m);
    store.ownRows.put(m, AggregateStore.A);
    checker.member(m, true);
  }

  /**
   * Runs the world to rest or the step budget, checking after every step.
   *
   * @return the checker with its verdict.
   */
  public AggregateChecker run() {
    boolean quiet = false;
    while (steps < MAX_STEPS && !checker.failed()) {
      steps++;
      if (steps == moveStartStep) {
        move.startMove();
      } else {
        step();
      }
      checker.afterStep(this);
      quiet = steps > moveStartStep && quiescent();
      if (quiet) {
        break;
      }
    }
    checker.atEnd(this, quiet, sc.healthy());
    return checker;
  }

  private boolean quiescent() {
    if (sent < sc.clientMessages() || !aToB.isEmpty() || !bToA.isEmpty() || !storeOps.isEmpty()
        || !lateWrites.isEmpty() || !gateControl.isEmpty() || !driver.isEmpty() || target.busy() || move.pending != null
        || !admittedJoins.isEmpty()) {
      return false;
    }
    for (int s = 0; s < sc.senders(); s++) {
      if (!toSource.get(s).isEmpty() || !toTarget.get(s).isEmpty()) {
        return false;
      }
    }
    for (final Timer t : timers) {
      if (t.essential()) {
        return false;
      }
    }
    for (final Cell c : source.values()) {
      if (c.dispatching() && !c.queue.isEmpty()) {
        return false;
      }
    }
    return switch (move.phase) {
      case RESTORED, HANDED_OVER, ABANDONED, NOT_SEALED -> true;
      default -> false;
    };
  }

  private void step() {
    final boolean gateReady = now >= gateStalledUntil && (!gateControl.isEmpty() || anyDispatchable());
    final int[] weights = {
        sent < sc.clientMessages() ? 14 : 0,
        anyNonEmpty(toSource) ? 20 : 0,
        anyNonEmpty(toTarget) ? 10 : 0,
        gateReady ? 25 : 0,
        driver.isEmpty() ? 0 : 20,
        aToB.isEmpty() ? 0 : 25,
        bToA.isEmpty() ? 0 : 20,
        target.laneReady() ? 20 : 0,
        target.dispatchable() ? 15 : 0,
        storeOps.isEmpty() && lateWrites.isEmpty() ? 0 : 20,
        6,
        losses < sc.maxLosses() && target.alive() ? (int) Math.ceil(sc.pLoss() * 100) : 0,
        joiners.isEmpty() ? 0 : 3,
        leavesLeft > 0 && !membership.isEmpty() ? 3 : 0,
        killEligible() ? 4 : 0,
        sc.laneStallMs() > 0 && stalls < MAX_STALLS ? 2 : 0};
    int total = 0;
    for (final int w : weights) {
      total += w;
    }
    int pick = rnd.nextInt(total);
    int choice = 0;
    while (pick >= weights[choice]) {
      pick -= weights[choice];
      choice++;
    }
    switch (choice) {
      case 0 -> clientSends();
      case 1 -> deliverToSource();
      case 2 -> deliverToTarget();
      case 3 -> gateStep();
      case 4 -> driver.poll().run();
      case 5 -> target.onFrame(aToB.poll());
      case 6 -> move.onReplyFrame(bToA.poll());
      case 7 -> target.laneStep();
      case 8 -> target.dispatchStep();
      case 9 -> storeStep();
      case 10 -> advanceClock();
      case 11 -> loseConnection();
      case 12 -> requestJoin();
      case 13 -> requestLeave();
      case 14 -> killTarget();
      default -> stall();
    }
  }

  private static boolean anyNonEmpty(final List<Deque<Long>> qs) {
    for (final Deque<Long> q : qs) {
      if (!q.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  private boolean anyDispatchable() {
    for (final Cell c : source.values()) {
      if (c.dispatching() && !c.queue.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  // ================================================================ clients

  private String pickKey() {
    final List<String> keys = new ArrayList<>(membership);
    keys.add(SPOT);
    if (!joiners.isEmpty() && rnd.nextInt(10) == 0) {
      keys.add(joiners.get(rnd.nextInt(joiners.size()))); // not a member (yet): NotFound
    }
    return keys.get(rnd.nextInt(keys.size()));
  }

  private long newMessage(final int sender, final String key, final boolean viaTarget) {
    final long id = nextId++;
    final int seq = nextSeq.merge(sender + "|" + key + "|" + viaTarget, 1, Integer::sum);
    final FrozenRecord record = new FrozenRecord(new RecordSource.Node(Rid.ofUtf8("client"), 1, "sender-" + sender,
        1), null, new OperationId(sender + 1, id), 3, id, new RecordBody.SpotRequest(
        new TargetSpot("room", 1, Rid.ofUtf8("node-a"), 1, 1, 1),
        new ApplicationPayload("Msg", "application/octet-stream", ByteBuffer.allocate(8).putLong(id).array())));
    msgs.put(id, new Msg(id, sender, key, viaTarget, seq, record));
    return id;
  }

  static long idOf(final FrozenRecord r) {
    return r.operationId().low();
  }

  private void clientSends() {
    sent++;
    final int s = rnd.nextInt(sc.senders());
    if (!knowsTarget[s] && AggregateStore.B.equals(store.ownerOf(SPOT)) && rnd.nextInt(4) == 0) {
      knowsTarget[s] = true; // the sender's route cache read the new owner
    }
    final String key = pickKey();
    final boolean direct = knowsTarget[s] && move.inventory.contains(key);
    final long id = newMessage(s, key, direct);
    (direct ? toTarget : toSource).get(s).add(id);
  }

  private void deliverToSource() {
    final List<Deque<Long>> ready = new ArrayList<>();
    toSource.forEach(q -> {
      if (!q.isEmpty()) {
        ready.add(q);
      }
    });
    offerAtSource(ready.get(rnd.nextInt(ready.size())).poll());
  }

  private void deliverToTarget() {
    final List<Deque<Long>> ready = new ArrayList<>();
    toTarget.forEach(q -> {
      if (!q.isEmpty()) {
        ready.add(q);
      }
    });
    final long id = ready.get(rnd.nextInt(ready.size())).poll();
    if (!target.alive()) {
      checker.failedTyped(id); // connection refused: the caller gets Unavailable
      return;
    }
    target.offerDirect(msgs.get(id));
  }

  /** Work arriving at the source's address ({@code Relocations.aggregateIngress} and the cell's mailbox). */
  private void offerAtSource(final long id) {
    final Msg m = msgs.get(id);
    final Cell c = source.get(m.key());
    if (c == null) {
      checker.failedTyped(id); // NotFound: not a member here
      return;
    }
    checker.accepted(id);
    if (c.gone) {
      if (now < move.followEnds) {
        move.follow(m.key(), id);
      } else {
        checker.failedTyped(id); // Message Follow ended: Unavailable
        checker.mark("unavailable_after_follow");
      }
    } else if (c.refusing) {
      checker.failedTyped(id);
      checker.mark("refused_after_abandon");
    } else {
      c.queue.add(id);
      if (!c.open) {
        checker.mark(move.holdTaken ? "arrived_after_hold_taken" : "held_after_seal");
      }
    }
  }

  private void gateStep() {
    if (!gateControl.isEmpty()) {
      gateControl.poll().run(); // a control task runs at the turn boundary, ahead of application messages
      return;
    }
    final List<Cell> ready = new ArrayList<>();
    for (final Cell c : source.values()) {
      if (c.dispatching() && !c.queue.isEmpty()) {
        ready.add(c);
      }
    }
    final Cell c = ready.get(rnd.nextInt(ready.size()));
    final long id = c.queue.poll();
    checker.handled(AggregateStore.A, c.key, msgs.get(id), store.ownerOf(c.key));
    c.state++;
    trace(() -> "A ran " + id + " of " + c.key);
  }

  // ================================================================ joins and leaves

  private void requestJoin() {
    final String j = joiners.get(rnd.nextInt(joiners.size()));
    gateControl.add(() -> {
      if (!joiners.contains(j) || admittedJoins.contains(j)) {
        return;
      }
      final boolean roomHere = !source.get(SPOT).gone && !source.get(SPOT).refusing;
      if (move.sealedRoom && variant != AggregateVariant.JOIN_ADMITTED_WHILE_SEALED || !roomHere) {
        checker.mark(roomHere ? "join_refused_sealed" : "join_refused_moved");
        trace(() -> "join of " + j + " refused (sealed or moved): Unavailable");
        if (joinTries.merge(j, 1, Integer::sum) >= 3) {
          joiners.remove(j);
        }
        return;
      }
      admittedJoins.add(j); // approved: the actor is on its way here (its own move)
      trace(() -> "join of " + j + " approved, arriving");
      if (move.phase == Phase.INTENT) {
        checker.mark("join_approved_while_intent_pending");
      }
      timer(now + 5 + rnd.nextInt(200), () -> gateControl.add(() -> {
        admittedJoins.remove(j);
        joiners.remove(j);
        if (move.sealedRoom) {
          checker.mark("join_arrived_while_sealed");
        }
        if (move.phase == Phase.INTENT) {
          racedJoins.add(j); // approved before the seal's intent ran, landed while it waited
        }
        join(j);
        trace(() -> "join of " + j + " committed");
      }));
    });
  }

  private void requestLeave() {
    leavesLeft--;
    final List<String> ms = new ArrayList<>(membership);
    final String m = ms.get(rnd.nextInt(ms.size()));
    gateControl.add(() -> {
      if (!membership.contains(m)) {
        return;
      }
      if (move.sealedRoom || source.get(SPOT).gone || source.get(SPOT).refusing) {
        checker.mark("leave_refused_sealed");
        trace(() -> "leave of " + m + " refused (sealed)");
        return;
      }
      membership.remove(m);
      store.pointed.remove(m); // its own row again: it stays here as a standalone actor
      checker.member(m, false);
      checker.mark(move.phase == Phase.RESTORED ? "leave_after_restore" : "leave_before_seal");
      trace(() -> "leave of " + m);
    });
  }

  // ================================================================ faults, clock, store

  private boolean killEligible() {
    if (!target.alive() || sc.killTarget() == 0) {
      return false;
    }
    return sc.killTarget() == 1 ? move.phase == Phase.SHIPPING : move.holdTaken;
  }

  private void killTarget() {
    checker.mark(move.phase == Phase.SHIPPING ? "target_killed_before_relay_ready"
        : store.owner.equals(AggregateStore.B) ? "target_killed_after_cas" : "target_killed_after_relay_ready");
    checker.targetKilled();
    target.kill();
    trace(() -> "target killed");
    dropConnection();
    connUp = false; // never again: the process is gone
  }

  private void loseConnection() {
    losses++;
    checker.mark("connection_lost");
    trace(() -> "connection " + conn + " lost");
    dropConnection();
    conn++;
  }

  private void dropConnection() {
    for (final Frame f : aToB) {
      if (f instanceof Follow fo) {
        checker.lostInTransport(fo.id()); // submitted, then lost with the connection (no order across connections)
      } else if (f instanceof Relay) {
        // The relay is never sent again (the runtime has no retransmission): saved work and hold end by their
        // callers' deadlines.
        checker.mark("relay_lost_with_connection");
        move.captured.values().forEach(ids -> ids.forEach(checker::lostInTransport));
        move.relayed.forEach(checker::lostInTransport);
      }
    }
    aToB.clear();
    bToA.clear();
    if (move.pending != null && move.pending.conn() == conn) {
      move.pending = null;
      driver.add(() -> move.answered(false, "the connection closed"));
    }
  }

  private void stall() {
    stalls++;
    checker.mark("lane_stall");
    if (rnd.nextBoolean()) {
      gateStalledUntil = now + sc.laneStallMs();
    } else {
      target.stall(now + sc.laneStallMs());
    }
  }

  void timer(final long at, final Runnable task) {
    timers.add(new Timer(at, task, false));
  }

  void retryTimer(final long at, final Runnable task) {
    timers.add(new Timer(at, task, true));
  }

  private void advanceClock() {
    now += rnd.nextInt(10) == 0 ? rnd.nextInt(800) : 1 + rnd.nextInt(20);
    final List<Timer> due = new ArrayList<>();
    timers.removeIf(t -> {
      if (t.at() <= now) {
        due.add(t);
        return true;
      }
      return false;
    });
    due.forEach(t -> t.task().run());
    if (move.pending != null && now >= move.pending.deadline()) {
      move.pending = null;
      checker.mark("step_timeout");
      driver.add(() -> move.answered(false, "no answer within the step timeout"));
    }
  }

  void submitStore(final StoreOp op) {
    storeOps.add(op);
  }

  void submitLate(final Runnable write) {
    lateWrites.add(write);
  }

  private void storeStep() {
    if (!lateWrites.isEmpty() && (storeOps.isEmpty() || rnd.nextInt(3) == 0)) {
      lateWrites.remove(rnd.nextInt(lateWrites.size())).run();
      return;
    }
    final StoreOp op = storeOps.poll();
    if (op.what().startsWith("target")) {
      // One client's calls run in the order it sent them (one store connection): a write whose answer was lost
      // applies, if at all, before that client's next call; another client may still read the record before it.
      lateWrites.forEach(Runnable::run);
      lateWrites.clear();
    }
    final String fault = rnd.nextDouble() < sc.pStoreTransient() ? "transient"
        : rnd.nextDouble() < sc.pStoreIndeterminate() ? "indeterminate" : "ok";
    trace(() -> "store: " + op.what() + " -> " + fault);
    op.run().accept(fault);
  }

  // ================================================================ the checker's view

  AggregateStore store() {
    return store;
  }

  List<String> inventory() {
    return move.inventory;
  }

  Set<String> keysEverSeen() {
    return keysEverSeen;
  }

  boolean dispatchingOnSource(final String key) {
    final Cell c = source.get(key);
    return c != null && c.dispatching();
  }

  boolean dispatchingOnTarget(final String key) {
    return target.dispatching(key);
  }

  int stateOf(final String key, final boolean onTarget) {
    return onTarget ? target.stateOf(key) : source.get(key).state;
  }

  Msg msg(final long id) {
    return msgs.get(id);
  }

  String describe(final long id) {
    final Msg m = msgs.get(id);
    return "sender " + m.sender() + " to " + m.key() + (m.viaTarget() ? " direct" : " via source") + " seq "
        + m.seq();
  }

  AggregateChecker.Outcome outcome() {
    return switch (move.phase) {
      case RESTORED -> AggregateChecker.Outcome.RESTORED;
      case NOT_SEALED -> AggregateChecker.Outcome.NOT_SEALED;
      case ABANDONED -> AggregateChecker.Outcome.ABANDONED;
      case HANDED_OVER -> target.alive() ? AggregateChecker.Outcome.COMMITTED
          : AggregateChecker.Outcome.COMMITTED_TARGET_KILLED;
      default -> AggregateChecker.Outcome.UNFINISHED;
    };
  }

  void trace(final java.util.function.Supplier<String> line) {
    if (tracing) {
      traceLines.add("step " + steps + " t=" + now + ": " + line.get());
      if (traceLines.size() > 80) {
        traceLines.poll();
      }
    }
  }

  /**
   * The readable trace of the last steps (only when created with tracing).
   *
   * @return lines, oldest first.
   */
  public List<String> traceLines() {
    return List.copyOf(traceLines);
  }

  /**
   * One line describing the run, for failure reports.
   *
   * @return the scenario and where the run stopped.
   */
  public String describeRun() {
    return sc + " variant=" + variant + " steps=" + steps + " now=" + now + " phase=" + move.phase + " owner="
        + store.owner + " targetAlive=" + target.alive() + " marks=" + new TreeMap<>(checker.marks());
  }
}
