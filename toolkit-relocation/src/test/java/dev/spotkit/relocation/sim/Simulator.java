package dev.spotkit.relocation.sim;

import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.Frame;
import dev.spotkit.relocation.InFlightBudget;
import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.RelocationPump;
import dev.spotkit.relocation.RelocationSettings;
import dev.spotkit.relocation.SourceEvent;
import dev.spotkit.relocation.SourceUnit;
import dev.spotkit.relocation.SourceAction;
import dev.spotkit.relocation.Stage;
import dev.spotkit.relocation.TargetAction;
import dev.spotkit.relocation.TargetEvent;
import dev.spotkit.relocation.TargetUnits;
import dev.spotkit.relocation.wire.CoordinatorFence;
import dev.spotkit.relocation.wire.ObjectIdentity;
import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.RelocationId;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.Role;
import dev.spotkit.relocation.wire.TargetFence;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * A deterministic world of one source node, one target node, one ordered connection (replaced on loss), a
 * Location Store with faults, clients and a fake clock, driving one {@link SourceUnit} and a {@link TargetUnits}.
 * Everything random comes from the seed. The {@link Checker} watches actions from outside after every step.
 */
public final class Simulator {
  static final String OBJECT = "actor-1";
  static final String KEY = "authority/actor/actor-1";
  static final String SOURCE_FENCE = "owner:node-a";
  static final String TARGET_FENCE = "owner:node-b";
  /** The authority record's version the source values were first read at (the CAS's expected version). */
  static final String FIRST_READ_VERSION = "v1";
  private static final ObjectIdentity WIRE_OBJECT = new ObjectIdentity.Actor(OBJECT, 1, 1);
  private static final TargetFence WIRE_TARGET_FENCE = new TargetFence(Rid.ofUtf8("node-b"), 1, "owner-b", 1);
  static final int MAX_STEPS = 4_000;

  /** A frame on the wire, or another object's frame sharing the connection. */
  record Wire(long connectionId, Frame frame, int otherObject) {
  }

  /** A pending store request: a CAS (its action) or a re-read of {@code key}. */
  /** A task handed to the target's relocation lane and the pump stamp it got. */
  record LaneTask(long stampMs, Runnable task) {
  }

  record StoreOp(Action.RunCas cas, String key, long requestId, boolean late, TargetEvent answer) {
    boolean isCas() {
      return cas != null;
    }
  }

  private final Scenario sc;
  private final SplittableRandom rnd;
  private final Checker checker;
  private final RelocationIdentity identity = new RelocationIdentity(new RelocationId(7, 11), 3,
      new CoordinatorFence("owner-a", 1, Rid.ofUtf8("node-a"), 1, "v1"));
  private final SourceUnit source;
  private final Function<TargetEvent, List<Action>> target;
  private final TargetUnits targetUnits;
  private final Deque<Wire> toTarget = new ArrayDeque<>();
  private final Deque<Wire> toSource = new ArrayDeque<>();
  /** Frames of connections already left, still buffered and read late (in their own connection's order). */
  private final Deque<Wire> staleToTarget = new ArrayDeque<>();
  private final Deque<Wire> staleToSource = new ArrayDeque<>();
  private final Deque<StoreOp> store = new ArrayDeque<>();
  private final Deque<Runnable> internal = new ArrayDeque<>();
  /** The target node's relocation lane: the pump hands it stamped inputs, it runs them when not stalled. */
  private final Deque<LaneTask> lane = new ArrayDeque<>();
  private final RelocationPump pump;
  /** When the stalled lane runs again (virtual ms); before it, nothing queued on the lane runs. */
  private long laneStalledUntil;
  private int stalls;
  /** Lane stalls per run at most; the Restore validity of such a run is longer by this many stalls. */
  private static final int MAX_STALLS = 2;
  /** The stamp of the input the target is handling now (the pump's stamp, or now for a driver feedback). */
  private long arrival;
  /** The old driver's defect, for the checker's review: inputs judged at the time the lane got to them. */
  private final boolean stampAtProcessing;
  private final Deque<Long> sourceQueue = new ArrayDeque<>();
  private final Deque<Long> targetQueue = new ArrayDeque<>();
  private final Map<Long, Message> messages = new HashMap<>();
  private final Set<Integer> chunksInFlight = new HashSet<>();
  private long now;
  private long connection = 1;
  private int losses;
  private int sent;
  private long nextId = 1;
  private String owner = SOURCE_FENCE;
  private int version = 1;
  private boolean sourceOpen = true;
  private boolean targetOpen;
  private boolean started;
  private boolean corrupted;
  private long commitAt = -1;
  private Wire duplicateCutover;
  /** How often each injected fault happened (coverage marks for the fault injection). */
  private final Map<String, Integer> injected = new HashMap<>();
  private int steps;

  /**
   * Creates a world.
   *
   * @param sc the scenario.
   * @param broken wraps the target side with a deliberate defect, or identity for the real machine.
   */
  public Simulator(final Scenario sc, final Function<Function<TargetEvent, List<Action>>,
      Function<TargetEvent, List<Action>>> broken) {
    this(sc, broken, false);
  }

  /**
   * Creates a world whose target driver may have the defect of judging each input when its lane got to it.
   *
   * @param sc the scenario.
   * @param broken wraps the target side with a deliberate defect, or identity for the real machine.
   * @param stampAtProcessing true: the target sees the time its lane ran an input, not when it arrived (the
   *     defect the pump's stamps fix); false: the real driver.
   */
  public Simulator(final Scenario sc, final Function<Function<TargetEvent, List<Action>>,
      Function<TargetEvent, List<Action>>> broken, final boolean stampAtProcessing) {
    this.sc = sc;
    this.stampAtProcessing = stampAtProcessing;
    this.pump = new RelocationPump(1, () -> now, i -> task -> lane.add(new LaneTask(now, task)));
    this.rnd = new SplittableRandom(sc.seed() * 0x9E3779B97F4A7C15L + 1);
    this.checker = new Checker(sc.boundSession());
    final RelocationSettings settings = new RelocationSettings(RelocationSettings.DEFAULT_CHUNK_LIMIT,
        sc.chunkBytes(), RelocationSettings.DEFAULT_CUTOVER_WAIT_MS, RelocationSettings.DEFAULT_FOLLOW_MS,
        sc.backoffMs());
    this.source = new SourceUnit(identity, OBJECT, connection, settings, new InFlightBudget(sc.budgetBytes(), null),
        sc.boundSession(), 0);
    this.targetUnits = new TargetUnits(settings, 0);
    this.target = broken.apply(this.stampAtProcessing ? e -> {
      final List<Action> out = new ArrayList<>(targetUnits.handle(new TargetEvent.ClockAdvanced(now)));
      out.addAll(targetUnits.handle(e)); // the old driver: every input moved the clock to when it ran
      return out;
    } : e -> List.<Action>copyOf(targetUnits.handle(e, arrival)));
    for (int i = 0; i < sc.savedWork(); i++) {
      final long id = newMessage();
      checker.acceptedAtSource(id, true);
      sourceQueue.add(id);
    }
  }

  /**
   * Runs the world to quiescence or the step budget, checking after every step.
   *
   * @return the checker with its verdict and counters.
   */
  public Checker run() {
    while (steps < MAX_STEPS && !checker.failed()) {
      steps++;
      step();
      drainInternal();
      checker.afterStep(sourceOpen, targetOpen, owner, source.stage());
      if (quiescent()) {
        break;
      }
    }
    if (!checker.failed()) {
      checker.atEnd(sc.healthy(), quiescent(), source.stage(), targetUnits.unitOf(OBJECT) == null ? null
          : targetUnits.unitOf(OBJECT).stage(), sourceQueue.isEmpty() && targetQueue.isEmpty());
    }
    return checker;
  }

  private boolean quiescent() {
    final boolean targetDone = targetUnits.unitOf(OBJECT) != null && targetUnits.unitOf(OBJECT).isTerminal();
    final boolean sourceDone = source.stage() == Stage.SOURCE_RUNNING && started || source.stage() == Stage.FOLLOW_ONLY
        && source.nextDeadlineMs() == Long.MAX_VALUE;
    return sent >= sc.clientMessages() && toTarget.isEmpty() && toSource.isEmpty() && store.isEmpty()
        && staleToTarget.isEmpty() && staleToSource.isEmpty() && duplicateCutover == null
        && internal.isEmpty() && lane.isEmpty() && (!sourceOpen || sourceQueue.isEmpty()) && (!targetOpen || targetQueue.isEmpty())
        && sourceDone && (targetDone || source.stage() == Stage.SOURCE_RUNNING);
  }

  private long newMessage() {
    final long id = nextId++;
    final byte[] body = ByteBuffer.allocate(8).putLong(id).array();
    messages.put(id, id % 2 == 0 ? Message.send(body) : Message.request(id, 900 + id, now + 60_000, body));
    return id;
  }

  private static long idOf(final Message m) {
    return ByteBuffer.wrap(m.body()).getLong();
  }

  private void step() {
    if (!started && (steps > 3 || rnd.nextInt(3) == 0)) {
      started = true;
      onSource(new SourceEvent.StartRequested());
      return;
    }
    // Weighted choice among the moves enabled now; time passes only as one move among others.
    final int[] weights = {
        sent < sc.clientMessages() ? 14 : 0,
        toTarget.isEmpty() ? 0 : 30,
        toSource.isEmpty() ? 0 : 15,
        store.isEmpty() ? 0 : 15,
        sourceOpen && !sourceQueue.isEmpty() ? 10 : 0,
        targetOpen && !targetQueue.isEmpty() ? 10 : 0,
        losses < sc.maxLosses() ? (int) Math.ceil(sc.pLoss() * 100) : 0,
        8,
        staleToTarget.isEmpty() ? 0 : 10,
        staleToSource.isEmpty() ? 0 : 5,
        duplicateCutover == null ? 0 : 5,
        lane.isEmpty() || now < laneStalledUntil ? 0 : 40};
    int total = 0;
    for (final int w : weights) {
      total += w;
    }
    int pick = rnd.nextInt(total);
    int move = 0;
    while (pick >= weights[move]) {
      pick -= weights[move];
      move++;
    }
    switch (move) {
      case 0 -> clientSends();
      case 1 -> deliverToTarget(toTarget.poll(), false);
      case 2 -> deliverToSource(toSource.poll());
      case 3 -> answerStore();
      case 4 -> checker.handled(sourceQueue.poll(), true);
      case 5 -> checker.handled(targetQueue.poll(), false);
      case 6 -> loseConnection();
      case 7 -> advanceClock();
      case 8 -> {
        injected.merge(toTarget.isEmpty() ? "stale_to_target" : "stale_to_target_interleaved", 1, Integer::sum);
        deliverToTarget(staleToTarget.poll(), true);
      }
      case 9 -> {
        injected.merge("stale_to_source", 1, Integer::sum);
        deliverToSource(staleToSource.poll());
      }
      case 10 -> repeatCutover();
      default -> runLane();
    }
  }

  /** The target's lane runs its next input, or (laneStallMs) stalls for a while with inputs queued. */
  private void runLane() {
    if (sc.laneStallMs() > 0 && stalls < MAX_STALLS && rnd.nextInt(4) == 0) {
      stalls++;
      injected.merge("lane_stall", 1, Integer::sum);
      laneStalledUntil = now + sc.laneStallMs();
      return;
    }
    lane.poll().task().run();
  }

  private void clientSends() {
    sent++;
    final long id = newMessage();
    // Directly to the target once routes name it, or (section 4.3) during Restore, before its CAS.
    final boolean direct = commitAt >= 0 ? now >= commitAt + 20 && rnd.nextBoolean()
        : sc.pEarlyDirect() > 0 && rnd.nextDouble() < sc.pEarlyDirect();
    if (direct) {
      if (commitAt < 0) {
        injected.merge("direct_before_cas", 1, Integer::sum);
      }
      checker.acceptedDirect(id);
      onTarget(new TargetEvent.DirectMessageArrived(OBJECT, messages.get(id)));
    } else {
      checker.acceptedAtSource(id, false);
      onSource(new SourceEvent.MessageArrived(messages.get(id)));
    }
  }

  /** A duplicate of a cutover already sent, delivered later on its connection if that connection still stands. */
  private void repeatCutover() {
    if (duplicateCutover.connectionId() == connection) {
      injected.merge("duplicate_cutover", 1, Integer::sum);
      toTarget.add(duplicateCutover);
    }
    duplicateCutover = null;
  }

  private void deliverToTarget(final Wire w, final boolean stale) {
    if (w.otherObject() > 0) {
      checker.otherObjectDelivered(!chunksInFlight.isEmpty());
      return;
    }
    switch (w.frame()) {
      case Frame.Prepare p -> onTarget(new TargetEvent.RestoreRequested(new RelocationFrame.Prepare(p.identity(),
          WIRE_TARGET_FENCE, Role.SOURCE, WIRE_OBJECT, Rid.ofUtf8("node-a"), 1, p.totalLength(), p.chunkCount(),
          p.crc32c(), 1), p.objectId(), w.connectionId(), sc.restoreValidityMs() + MAX_STALLS * sc.laneStallMs(),
          new TargetEvent.CasPlan(KEY, FIRST_READ_VERSION, TARGET_FENCE), sc.boundSession()));
      case Frame.StateChunk c -> {
        if (!stale) {
          chunksInFlight.remove(c.ordinal());
        }
        byte[] bytes = c.bytes();
        if (sc.pCorrupt() > 0 && !corrupted && bytes.length > 0) {
          corrupted = true;
          bytes[0] ^= 0x5A;
        }
        // The real command 52 bytes, read in place as a receiver does.
        final byte[] frame = RelocationCodec.encode(new RelocationFrame.State(c.identity(), Role.SOURCE, WIRE_OBJECT,
            c.ordinal(), bytes));
        onTarget(new TargetEvent.ChunkArrived(w.connectionId(), RelocationCodec.decodeStateView(frame)));
        if (!stale) {
          onSource(new SourceEvent.ChunkReleased(c.ordinal())); // The old connection's charges went with it.
        }
      }
      case Frame.Relay r -> onTarget(new TargetEvent.RelayArrived(r.identity(), w.connectionId(), r.message()));
      case Frame.Cutover c -> onTarget(new TargetEvent.CutoverArrived(c.identity(), w.connectionId(),
          c.recordCount(), c.crc32c()));
      case Frame.Follow f -> onTarget(new TargetEvent.DirectMessageArrived(f.objectId(), f.message()));
      default -> throw new AssertionError("unexpected frame to target " + w.frame());
    }
  }

  private void deliverToSource(final Wire w) {
    switch (w.frame()) {
      case Frame.RelayReady r -> onSource(new SourceEvent.RelayReadyArrived(r.identity()));
      case Frame.Failed f -> onSource(new SourceEvent.FailureArrived(f.identity(), f.code()));
      default -> throw new AssertionError("unexpected frame to source " + w.frame());
    }
  }

  private void answerStore() {
    final StoreOp op = store.poll();
    if (op.late()) {
      onTarget(op.answer());
      return;
    }
    final double f = rnd.nextDouble();
    if (f < sc.pStoreTransient()) {
      onTarget(op.isCas() ? new TargetEvent.CasAnswered(identity, op.requestId(), TargetEvent.CasOutcome.TRANSIENT)
          : new TargetEvent.StoreReadFailed(identity, op.requestId()));
      return;
    }
    final TargetEvent answer;
    if (op.isCas()) {
      // The store honours the CAS as sent: its key, expected version and fence (section 6). Anything but this
      // target's own fence over the version first read is a condition mismatch.
      final Action.RunCas cas = op.cas();
      final boolean applies = cas.key().equals(KEY) && cas.expectedVersion().equals("v" + version)
          && owner.equals(SOURCE_FENCE) && cas.fence().equals(TARGET_FENCE);
      if (applies) {
        owner = cas.fence();
        version++;
        commitAt = now;
      }
      answer = new TargetEvent.CasAnswered(identity, op.requestId(),
          applies ? TargetEvent.CasOutcome.APPLIED : TargetEvent.CasOutcome.CONFLICT);
    } else if (op.key().equals(KEY)) {
      answer = new TargetEvent.StoreReadAnswered(identity, op.requestId(), owner, "v" + version);
    } else {
      answer = new TargetEvent.StoreReadAnswered(identity, op.requestId(), "", "v0"); // No such record.
    }
    if (f < sc.pStoreTransient() + sc.pStoreLost()) {
      onTarget(op.isCas() ? new TargetEvent.CasIndeterminate(identity, op.requestId())
          : new TargetEvent.StoreReadFailed(identity, op.requestId()));
      if (rnd.nextBoolean()) {
        store.add(new StoreOp(op.cas(), op.key(), op.requestId(), true, answer)); // The lost answer arrives late.
      }
      return;
    }
    onTarget(answer);
  }

  private void loseConnection() {
    losses++;
    // Frames still buffered on the broken connection may be read late, after the newer connection's frames: a
    // prefix of each direction, in its own order (driver contract: the newer connection has a larger id).
    final boolean readLate = sc.pStaleRead() > 0 && rnd.nextDouble() < sc.pStaleRead();
    final int keepToTarget = readLate ? rnd.nextInt(toTarget.size() + 1) : 0;
    final int keepToSource = readLate ? rnd.nextInt(toSource.size() + 1) : 0;
    int i = 0;
    for (final Wire w : toTarget) {
      if (w.frame() instanceof Frame.Follow f) {
        checker.lostInTransport(idOf(f.message())); // Follow order across connections is not checked; dropped.
      } else if (i < keepToTarget && w.otherObject() == 0) {
        staleToTarget.add(w);
      }
      i++;
    }
    i = 0;
    for (final Wire w : toSource) {
      if (i++ < keepToSource) {
        staleToSource.add(w);
      }
    }
    toTarget.clear();
    toSource.clear();
    chunksInFlight.clear();
    connection++;
    final long c = connection;
    onSource(new SourceEvent.ConnectionLost());
    internal.add(() -> onSource(new SourceEvent.ConnectionOpened(c)));
  }

  private void advanceClock() {
    if (now < laneStalledUntil && toTarget.isEmpty() && toSource.isEmpty() && store.isEmpty()) {
      // A stall lasts seconds, in a few steps, once the wire is idle: the network stays as fast as ever (only the
      // lane is behind), so a fallback here could only come from the lane's local queueing.
      now += 1 + rnd.nextInt((int) Math.max(1, sc.laneStallMs() / 4));
    } else {
      now += rnd.nextDouble() < sc.pClockJump() ? rnd.nextInt(1_500) : 1 + rnd.nextInt(20);
    }
    if (sc.pStale() > 0 && owner.equals(SOURCE_FENCE) && now > 300 && version == 1) {
      owner = "owner:node-c"; // A third party moved the object: the target must end as stale.
      version = 2;
    }
    onSource(new SourceEvent.ClockAdvanced(now));
    onTarget(new TargetEvent.ClockAdvanced(now));
  }

  private void drainInternal() {
    for (int i = 0; i < 1_000 && !internal.isEmpty(); i++) {
      internal.poll().run();
    }
  }

  private void onSource(final SourceEvent e) {
    if (e instanceof SourceEvent.MessageArrived m && source.stage() == Stage.SOURCE_PAUSED) {
      checker.held(idOf(m.message()));
    }
    final var actions = source.handle(e);
    checker.sourceActions(actions, source.stage());
    for (final SourceAction a : actions) {
      performSource(a);
    }
  }

  private void performSource(final SourceAction a) {
    switch (a) {
      case Action.Send s -> {
        if (s.connectionId() == connection) {
          if (s.frame() instanceof Frame.StateChunk c) {
            chunksInFlight.add(c.ordinal());
          }
          if (rnd.nextDouble() < sc.pOther()) {
            toTarget.add(new Wire(connection, null, 1));
          }
          toTarget.add(new Wire(connection, s.frame(), 0));
          if (s.frame() instanceof Frame.Cutover && duplicateCutover == null && sc.pDuplicateCutover() > 0
              && rnd.nextDouble() < sc.pDuplicateCutover()) {
            duplicateCutover = new Wire(connection, s.frame(), 0); // Section 4.4: a duplicate only warns.
          }
        } else if (s.frame() instanceof Frame.Follow f) {
          checker.lostInTransport(idOf(f.message()));
        }
      }
      case Action.PauseDispatch p -> sourceOpen = false;
      case Action.CapturePayload c -> {
        final List<Long> saved = new ArrayList<>(sourceQueue);
        sourceQueue.clear();
        checker.captured(saved);
        final ByteBuffer b = ByteBuffer.allocate(4 + 8 * saved.size() + sc.stateBytes());
        b.putInt(saved.size());
        saved.forEach(b::putLong);
        for (int i = 0; i < sc.stateBytes(); i++) {
          b.put((byte) (i * 31 + sc.seed()));
        }
        final byte[] payload = b.array();
        internal.add(() -> onSource(new SourceEvent.PayloadCaptured(payload)));
      }
      case Action.DispatchLocal d -> sourceQueue.add(idOf(d.message()));
      case Action.RestoreSourceQueue r -> {
        sourceQueue.clear();
        sourceQueue.addAll(decode(r.payload()));
        r.held().forEach(m -> sourceQueue.add(idOf(m)));
      }
      case Action.ReopenDispatch r -> sourceOpen = true;
      case Action.FailMessage f -> checker.failedExplicitly(idOf(f.message()));
      case Action.ReleasePayload r -> {
      }
      case Action.SendToSessionOwner s -> {
      }
      case Action.Log l -> {
      }
    }
  }

  private static List<Long> decode(final byte[] payload) {
    final List<Long> ids = new ArrayList<>();
    if (payload.length == 0) {
      return ids;
    }
    final ByteBuffer b = ByteBuffer.wrap(payload);
    final int n = b.getInt();
    for (int i = 0; i < n; i++) {
      ids.add(b.getLong());
    }
    return ids;
  }

  /** An input of the target node: through the pump (stamped now), run when its lane gets to it. */
  private void onTarget(final TargetEvent e) {
    pump.submit(OBJECT, at -> handleOnTarget(e, at));
  }

  private void handleOnTarget(final TargetEvent e, final long at) {
    arrival = at;
    final List<Action> actions = target.apply(e);
    checker.targetActions(e, actions, owner);
    for (final Action a : actions) {
      performTarget((TargetAction) a); // a variant only wraps the real target's actions
    }
  }

  private void performTarget(final TargetAction a) {
    switch (a) {
      case Action.Send s -> {
        if (s.connectionId() == connection) {
          toSource.add(new Wire(connection, s.frame(), 0));
        }
        if (s.frame() instanceof Frame.RelayReady ready) {
          handleOnTarget(new TargetEvent.RelayReadySent(ready.identity(), now), now); // the driver's feedback
        }
      }
      case Action.RunRestore r -> {
        final List<Message> saved = decode(r.payload()).stream().map(messages::get).toList();
        final boolean fail = sc.pRestoreFail() > 0;
        internal.add(() -> onTarget(fail ? new TargetEvent.RestoreFailed(identity, "factory threw")
            : new TargetEvent.RestoreFinished(identity, saved)));
      }
      case Action.RunCas c -> store.add(new StoreOp(c, c.key(), c.requestId(), false, null));
      case Action.ReReadStore r -> store.add(new StoreOp(null, r.key(), r.requestId(), false, null));
      case Action.MergeBacklog m -> {
        for (final List<Message> span : List.of(m.savedWork(), m.preBoundary(), m.postBoundary())) {
          span.forEach(x -> targetQueue.add(idOf(x)));
        }
      }
      case Action.OpenDispatch o -> targetOpen = true;
      case Action.DispatchLocal d -> targetQueue.add(idOf(d.message()));
      case Action.FailMessage f -> checker.failedExplicitly(idOf(f.message()));
      case Action.RegisterTemporaryQueue r -> {
      }
      case Action.RemoveStaging rs -> {
      }
      case Action.SendToSessionOwner s -> {
      }
      case Action.Log l -> {
      }
    }
  }

  /**
   * How often each injected fault happened in this run.
   *
   * @return counts by fault name.
   */
  public Map<String, Integer> injected() {
    return injected;
  }

  /**
   * One line describing the run, for failure reports.
   *
   * @return the scenario and where the run stopped.
   */
  public String describe() {
    return sc + " steps=" + steps + " now=" + now + " lane=" + lane.size() + " source=" + source.stage() + " target="
        + (targetUnits.unitOf(OBJECT) == null ? "none" : targetUnits.unitOf(OBJECT).stage());
  }
}
