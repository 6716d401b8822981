package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorFactory;
import dev.spotkit.core.ActorRelocationAdapter;
import dev.spotkit.core.OnTick;
import dev.spotkit.core.Spot;
import dev.spotkit.core.SpotRelocationAdapter;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Cell;
import dev.spotkit.core.internal.runtime.CellState;
import dev.spotkit.core.internal.runtime.Envelope;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.SpotCell;
import dev.spotkit.core.internal.runtime.Turn;
import dev.spotkit.core.internal.session.BoundSession;
import dev.spotkit.core.location.AggregateAuthority;
import dev.spotkit.core.location.InventoryEntry;
import dev.spotkit.core.location.InventoryTree;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.PlacementBatches;
import dev.spotkit.core.location.PlacementKind;
import dev.spotkit.relocation.wire.ChunkPlan;
import dev.spotkit.relocation.wire.EnvelopeEntries;
import dev.spotkit.relocation.wire.FrozenRecord;
import dev.spotkit.relocation.wire.ParticipantInventory;
import dev.spotkit.relocation.wire.RelocationEnvelope;
import dev.spotkit.relocation.wire.RelocationEnvelopeCodec;
import dev.spotkit.relocation.wire.Role;
import dev.spotkit.relocation.wire.SessionRelocationCodec;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import dev.spotkit.relocation.wire.SessionRouteAction;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The target half of a SpotWide User Spot aggregate move (spec 000 section 7 steps 4-6; spec 002 sections 1.2 and
 * 8.2): verify, restore with admission closed, the one target-only CAS, then open. Not API.
 *
 * <p>{@link #prepare}: the payload's length and CRC-32C are checked against the source's manifest, and the inventory
 * the Location Store holds under the sealed root against its count and digest; only when both hold does Restore
 * begin (spec 002 section 1.2). Then, for every participant in inventory order, a staging cell that no lookup finds:
 * the Spot's factory and configure, then its {@link SpotRelocationAdapter}; each member's factory and configure, then
 * its own {@link ActorRelocationAdapter} (each called separately, PreserveStateWith only); timer registrations; the
 * not-yet-run queue as the dispatch-closed backlog. Nothing is visible and no handler runs.
 *
 * <p>{@link #relay} appends work that reached the source after its seal (its ingress hold) to the participant's
 * backlog, in arrival order. {@link #commit} runs {@link AggregateAuthority#commit} (one CAS moving the Spot and every
 * member), then registers the cells, puts each member on the Spot's gate and opens every mailbox with its backlog in
 * one step. No membership callback runs for members (spec 000 section 7). {@link #discard} drops the staging when the
 * move fails before relay-ready. Requests keep their reply route: their answers go back to the source as command 20.
 *
 * <p>An Instance Spot move ({@link InstanceMoves}) stages its one Spot with the Instance Spot factory of the stable
 * type its row names, checks room for one {@code instanceSpot} slot, and commits with the one-row CAS on its row.
 *
 * <p>Thread-safety: one thread at a time (the move's driver); {@link #commit} blocks for store calls (virtual
 * threads).
 */
public final class AggregateRestore {
  private final NodeRuntime rt;
  private final AggregateAuthority.Sealed sealed;
  private final String aggregateId;
  private final Map<String, Cell> staged = new LinkedHashMap<>();
  private final Map<String, List<Envelope>> backlog = new HashMap<>();
  private final Map<String, LocationRecords.Stored> rows = new HashMap<>();
  /** The command 42 each session-bound member's move installed, by ActorId (for the command 44 commit). */
  private final Map<String, SessionRelocationFrame.Seal> seals = new HashMap<>();
  /** Each session-bound member's binding, by ActorId. */
  private final Map<String, Relocations.Binding> bindings = new HashMap<>();
  private SpotCell spot;
  /**
   * A one-row move ({@link InstanceMoves}: an Instance Spot, or a PerActor User Spot's shell): its row as sealed;
   * null for a room.
   */
  private LocationRecords.Stored instanceRow;

  /** The node the room comes from (set before {@link #commit}), or null. */
  private volatile dev.spotkit.core.NodeRid source;

  /**
   * Names the node the room comes from: once open here, what that node follows to this node is earlier work of its
   * senders ({@link Cell#arrivedFrom}). Call before {@link #commit}.
   *
   * @param from the source node.
   */
  public void source(final dev.spotkit.core.NodeRid from) {
    this.source = from;
  }

  private AggregateRestore(final NodeRuntime rt, final AggregateAuthority.Sealed sealed, final String aggregateId) {
    this.rt = rt;
    this.sealed = sealed;
    this.aggregateId = aggregateId;
  }

  /**
   * Verifies and restores the room with admission closed. Blocks for store reads; virtual threads.
   *
   * @param rt the target node.
   * @param payload the assembled relocation-envelope-v1 stream.
   * @param totalLength the manifest's total length, bytes.
   * @param crc32c the manifest's CRC-32C of the whole stream.
   * @param sealed what the source's seal fixed (aggregate and Spot versions, inventory root, count and digest).
   * @param aggregateId the move's AggregateId.
   * @param unitKind the manifest's unit kind: {@link InstanceMoves#UNIT_ROOM}, or {@link InstanceMoves#UNIT_INSTANCE}
   *     or {@link InstanceMoves#UNIT_PER_ACTOR} (a one-row unit: its row instead of an inventory).
   * @return the staged room.
   * @throws SpotkitException.DataLost when the payload's length or checksum differs from the manifest, or the
   *     inventory does not verify.
   * @throws SpotkitException.NotConfigured when a participant's type is not registered here (for an Instance
   *     Spot: no Instance Spot factory for its stable type; for a PerActor shell: no PerActor User Spot factory).
   * @throws SpotkitException.Unavailable when an Instance Spot's row changed since its seal.
   * @throws SpotkitException.InvalidOperation when the payload does not match the inventory.
   */
  public static AggregateRestore prepare(final NodeRuntime rt, final byte[] payload, final long totalLength,
      final long crc32c, final AggregateAuthority.Sealed sealed, final String aggregateId, final int unitKind) {
    final boolean oneRow = unitKind != InstanceMoves.UNIT_ROOM;
    final String spotId = sealed.tree().spotId();
    if (payload.length != totalLength || ChunkPlan.crc32c(payload) != crc32c) {
      throw new SpotkitException.DataLost("relocation payload of spot '" + spotId + "' is " + payload.length
          + " bytes with CRC-32C " + Long.toHexString(ChunkPlan.crc32c(payload)) + "; the manifest declared "
          + totalLength + " bytes and " + Long.toHexString(crc32c));
    }
    final LocationRecords.Stored row = oneRow ? InstanceMoves.sealedRow(rt, sealed, unitKind) : null;
    final List<InventoryEntry> inventory = oneRow ? InstanceMoves.inventory(row, spotId) : InventoryTree.read(
        rt.store().store(), spotId, sealed.tree().rootSha256Hex(), sealed.tree().count(),
        sealed.tree().digestSha256Hex(), AggregateSeal.STORE_TIMEOUT);
    if (HostDrains.drainingHere(rt)) { // before relay-ready: the room stays on its source, which may pick another
      throw new SpotkitException.Unavailable("node " + rt.nodeRid() + " is being drained itself; spot '" + spotId
          + "' stays on its source");
    }
    checkRoom(rt, spotId, inventory.size(), row);
    final AggregateRestore r = new AggregateRestore(rt, sealed, aggregateId);
    r.instanceRow = row;
    try {
      r.build(payload, inventory);
    } catch (RuntimeException e) {
      r.discard();
      throw e;
    }
    return r;
  }

  /**
   * Before relay-ready, so a refusal keeps the whole room on the source: this node's capacity record must have room
   * for the whole bundle (1 Spot, its type slot, one Actor slot per member). Not a reservation: the CAS checks again
   * and refuses all or nothing (spec 002 section 8.1).
   */
  private static void checkRoom(final NodeRuntime rt, final String spotId, final int participants,
      final LocationRecords.Stored instanceRow) {
    final PlacementBatches.Target self = rt.store().self();
    final var read = dev.spotkit.core.location.StoreCalls.await(rt.store().store().read(
        dev.spotkit.core.location.LocationKeys.nodeCapacity(self.meshName(), self.routingIdHex()).preimage()),
        AggregateSeal.STORE_TIMEOUT, "read of this node's capacity record");
    if (!(read instanceof dev.spotkit.store.ReadResult.Found found)) {
      return; // no record: the CAS reports it
    }
    final String stableType = instanceRow != null ? instanceRow.record().stableType() : new AggregateAuthority(
        rt.store().store(), AggregateSeal.STORE_TIMEOUT, PlacementBatches.DEFAULT_ATTEMPTS).read(spotId)
        .map(a -> a.record().stableType()).orElse(null);
    if (stableType == null) {
      return;
    }
    final var full = dev.spotkit.core.location.NodeCapacityRecord.decode(found.value()).whyFull(
        new dev.spotkit.core.location.AuthorityRecord.Capacity(participants - 1, 1,
            new dev.spotkit.core.location.AuthorityRecord.SpotTypeSlot(instanceRow != null
            ? instanceRow.authority().allocation().objectKind() : PlacementKind.USER_SPOT, stableType, 1)));
    if (full.isPresent()) {
      throw new SpotkitException.CapacityExceeded("node " + rt.nodeRid() + " has no room for spot '" + spotId
          + "' with its " + (participants - 1) + " members: " + full.get() + "; the room stays on its source");
    }
  }

  private static String key(final InventoryEntry e) {
    return (e.objectKind() == PlacementKind.ACTOR ? "actor:" : "spot:") + e.id();
  }

  private void build(final byte[] payload, final List<InventoryEntry> inventory) {
    final ParticipantInventory participants = ParticipantInventory.of(inventory.stream()
        .map(AggregateRestore::key).toList());
    final RelocationEnvelope env = RelocationEnvelopeCodec.decodeOwned(payload, participants.size(),
        Integer.MAX_VALUE);
    final Map<Long, ByteBuffer> states = new HashMap<>();
    for (EnvelopeEntries.ApplicationState s : env.applicationStates()) {
      states.put(s.participantId(), s.stateBuffer());
    }
    final Map<String, InventoryEntry> byKey = HashMap.newHashMap(inventory.size());
    final List<ObjectKey> memberKeys = new ArrayList<>(inventory.size());
    for (InventoryEntry e : inventory) {
      byKey.put(key(e), e);
      if (e.objectKind() == PlacementKind.ACTOR) {
        memberKeys.add(ObjectKey.actor(e.id()));
      }
    }
    // every member's row in batched reads, each aggregate read once (not two reads per member)
    final List<java.util.Optional<LocationRecords.Stored>> memberRows = LocationRecords.readAll(rt.store().store(),
        memberKeys, AggregateSeal.STORE_TIMEOUT);
    final Map<String, LocationRecords.Stored> rowById = HashMap.newHashMap(memberKeys.size());
    for (int i = 0; i < memberKeys.size(); i++) {
      final int at = i;
      memberRows.get(i).ifPresent(r -> rowById.put(memberKeys.get(at).id(), r));
    }
    for (long pid = 1; pid <= participants.size(); pid++) {
      final String k = participants.authorityKey(pid);
      final InventoryEntry entry = byKey.get(k);
      final ByteBuffer state = states.get(pid);
      final byte[] bytes = state == null ? null : new byte[state.remaining()];
      if (bytes != null) {
        state.get(bytes);
      }
      final Cell cell = entry.objectKind() != PlacementKind.ACTOR ? stageSpot(entry, bytes)
          : stageMember(entry, rowById.get(entry.id()), bytes);
      staged.put(k, cell);
      backlog.put(k, new ArrayList<>());
    }
    if (spot == null) {
      throw new SpotkitException.InvalidOperation("the inventory of spot '" + sealed.tree().spotId() + "' lists no"
          + " User Spot");
    }
    restoreTimers(env, participants);
    // Saved work and pending ticks of each participant, merged by order (the dispatch-closed saved-work span, spec
    // 001 section 4.3): a timer whose tick was pending starts marked queued, so its tick must be in the backlog.
    final List<EnvelopeEntries.SavedWork> work = env.savedWork();
    final List<EnvelopeEntries.PendingTimerTick> ticks = env.pendingTimerTicks();
    int w = 0;
    int k = 0;
    while (w < work.size() || k < ticks.size()) {
      final boolean takeWork = k >= ticks.size() || w < work.size()
          && (work.get(w).participantId() < ticks.get(k).participantId()
          || work.get(w).participantId() == ticks.get(k).participantId()
          && Long.compareUnsigned(work.get(w).order(), ticks.get(k).order()) < 0);
      if (takeWork) {
        final EnvelopeEntries.SavedWork item = work.get(w++);
        backlog.get(participants.authorityKey(item.participantId())).add(rt.relocations().thaw(item.record()));
      } else {
        final EnvelopeEntries.PendingTimerTick tick = ticks.get(k++);
        final String key = participants.authorityKey(tick.participantId());
        final dev.spotkit.core.internal.runtime.CellTimers.Entry timer = staged.get(key).timers.entry(
            tick.timerName());
        if (timer != null) {
          timer.queued.set(true);
          backlog.get(key).add(new Envelope.Tick(timer));
        }
      }
    }
  }

  private Cell stageSpot(final InventoryEntry entry, final byte[] state) {
    final String stableType = instanceRow != null ? instanceRow.record().stableType() : new AggregateAuthority(
        rt.store().store(), AggregateSeal.STORE_TIMEOUT, PlacementBatches.DEFAULT_ATTEMPTS).read(entry.id())
        .orElseThrow(() -> new SpotkitException.DataLost("spot '" + entry.id() + "' has no aggregate record; the"
        + " source's seal did not record it")).record().stableType();
    final NodeConfig.SpotType type = rt.config().spotTypes().get(stableType);
    final boolean perActor = instanceRow != null
        && instanceRow.authority().allocation().objectKind() == PlacementKind.USER_SPOT;
    if (perActor && (type == null || type.kind() != NodeConfig.SpotKind.USER || !type.perActor())) {
      throw new SpotkitException.NotConfigured("node " + rt.nodeRid() + " has no PerActor User Spot factory for"
          + " stable type '" + stableType + "'");
    }
    if (instanceRow != null && !perActor && (type == null || type.kind() != NodeConfig.SpotKind.INSTANCE)) {
      throw new SpotkitException.NotConfigured("node " + rt.nodeRid() + " has no Instance Spot factory for stable"
          + " type '" + stableType + "'");
    }
    if (instanceRow == null && (type == null || type.kind() != NodeConfig.SpotKind.USER || type.perActor())) {
      throw new SpotkitException.NotConfigured("node " + rt.nodeRid() + " has no SpotWide User Spot factory for"
          + " stable type '" + stableType + "'");
    }
    final SpotCell cell = new SpotCell(rt, entry.id(), type);
    cell.generation = entry.objectGeneration();
    final Spot instance;
    try {
      instance = rt.creations().buildSpot(cell);
    } catch (Exception e) {
      throw Cell.typed(e, "restore of " + cell.describe());
    }
    if (type.policy() == NodeConfig.Policy.PRESERVE && state != null) {
      adapt(cell, () -> restoreSpot(type, instance, state));
    }
    spot = cell;
    return cell;
  }

  @SuppressWarnings("unchecked")
  private static void restoreSpot(final NodeConfig.SpotType type, final Spot instance, final byte[] state) {
    ((SpotRelocationAdapter<Spot>) type.adapter()).restore(instance, state);
  }

  @SuppressWarnings("unchecked")
  private Cell stageMember(final InventoryEntry entry, final LocationRecords.Stored row, final byte[] framing) {
    if (row == null) {
      throw new SpotkitException.InvalidOperation("member actor '" + entry.id() + "' of the inventory has no location"
          + " record");
    }
    final NodeConfig.ActorType type = rt.config().actorTypes().get(row.record().stableType());
    if (type == null) {
      throw new SpotkitException.NotConfigured("node " + rt.nodeRid() + " has no actor factory for stable type '"
          + row.record().stableType() + "' (member '" + entry.id() + "')");
    }
    rows.put(entry.id(), row);
    final ActorCell cell = new ActorCell(rt, entry.id(), type);
    cell.generation = entry.objectGeneration();
    final byte[] appState = readMemberState(cell, framing);
    cell.context = rt.facades().actorContext(cell);
    adapt(cell, () -> {
      final Actor actor = ((ActorFactory<Actor>) type.factory()).create(cell.context);
      if (actor == null) {
        throw new SpotkitException.InternalFailure("the actor factory of type '" + type.stableType()
            + "' returned null");
      }
      actor.configure(rt.facades().actorHandlers(cell.handlers));
      cell.handlers.freeze();
      if (type.policy() == NodeConfig.Policy.PRESERVE && appState != null) {
        ((ActorRelocationAdapter<Actor>) type.adapter()).restore(actor, appState);
      }
      cell.actor = actor;
    });
    return cell;
  }

  /**
   * A member's state entry as {@code AggregateSeal} writes it: the command 42 of its session (kept for the command 44
   * commit after the open), then {@link Relocations#frameState}: its session binding (a {@link BoundSession} on the
   * staging cell: pushes go to the Session owner, frames come from there) and the adapter's bytes.
   *
   * @return the adapter's bytes, or null when none travelled.
   * @throws SpotkitException.DataLost when the entry is truncated.
   */
  private byte[] readMemberState(final ActorCell cell, final byte[] framing) {
    if (framing == null) {
      return null;
    }
    final ByteBuffer b = ByteBuffer.wrap(framing);
    try {
      if (b.get() != 1) {
        throw new SpotkitException.DataLost("state entry of member '" + cell.id + "' has an unknown version");
      }
      final byte[] sealBytes = new byte[b.getInt()];
      b.get(sealBytes);
      if (sealBytes.length > 0) {
        seals.put(cell.id, (SessionRelocationFrame.Seal) SessionRelocationCodec.decode(sealBytes));
      }
      if (b.get() != 2) {
        throw new SpotkitException.DataLost("state framing of member '" + cell.id + "' has an unknown version");
      }
      b.getLong();
      b.getLong();
      b.getLong();
      final int flags = b.get();
      if ((flags & Relocations.FRAMING_HAS_BINDING) != 0) {
        final Relocations.Binding binding = Relocations.readBinding(b, flags, cell.id);
        bindings.put(cell.id, binding);
        cell.binding = new BoundSession(rt, binding, cell);
      }
      if ((flags & Relocations.FRAMING_HAS_STATE) == 0) {
        return null;
      }
      final byte[] state = new byte[b.remaining()];
      b.get(state);
      return state;
    } catch (java.nio.BufferUnderflowException e) {
      throw new SpotkitException.DataLost("state entry of member '" + cell.id + "' is truncated", e);
    }
  }

  private static void adapt(final Cell cell, final Runnable code) {
    final Turn turn = Turn.enter(cell, false);
    try {
      code.run();
    } finally {
      turn.exit();
    }
  }

  private void restoreTimers(final RelocationEnvelope env, final ParticipantInventory participants) {
    final long nowUnix = System.currentTimeMillis();
    final Set<String> pending = new HashSet<>();
    for (EnvelopeEntries.PendingTimerTick p : env.pendingTimerTicks()) {
      pending.add(p.participantId() + "\0" + p.timerName());
    }
    for (EnvelopeEntries.TimerRegistration t : env.timerRegistrations()) {
      final Cell cell = staged.get(participants.authorityKey(t.participantId()));
      final OnTick tick = cell.handlers.timer(t.name());
      if (tick == null) {
        NodeRuntime.LOG.warn("timer '{}' of {} moved here but this instance declares no on.timer(\"{}\", ...);"
            + " dropped", t.name(), cell.describe(), t.name());
        continue;
      }
      cell.timers.every(t.name(), Duration.ofMillis(Math.max(1, t.periodMilliseconds())), tick,
          Duration.ofMillis(Math.max(0, t.nextScheduledAtUnixMilliseconds() - nowUnix)),
          t.lastCompletedDeliveryIndex(), pending.contains(t.participantId() + "\0" + t.name()));
    }
  }

  /**
   * Work that reached the source after its seal, for one participant, in arrival order (the relayed ingress hold):
   * appended to its backlog behind the saved work.
   *
   * @param participantKey {@code spot:{id}} or {@code actor:{id}}.
   * @param records the frozen records, in arrival order.
   * @throws IllegalArgumentException when the key is not a participant.
   */
  public void relay(final String participantKey, final List<FrozenRecord> records) {
    final List<Envelope> queue = backlog.get(participantKey);
    if (queue == null) {
      throw new IllegalArgumentException("'" + participantKey + "' is not a participant of the aggregate of spot '"
          + sealed.tree().spotId() + "'");
    }
    for (FrozenRecord record : records) {
      queue.add(rt.relocations().thaw(record));
    }
  }

  /**
   * The one target-only CAS, then open (spec 000 section 7 steps 5-6): on success every cell is registered here,
   * members run on the Spot's gate, and each mailbox opens with its backlog in one step. Blocks for store calls.
   *
   * @return the CAS's outcome; on anything but Committed the staging is discarded and nothing opened.
   * @throws SpotkitException.CapacityExceeded when this node has no room for the whole room (staging discarded).
   */
  public AggregateAuthority.Outcome commit() {
    final AggregateAuthority.Outcome outcome;
    for (Map.Entry<String, Cell> e : staged.entrySet()) { // from the CAS on, work routed here waits in order
      if (e.getValue() instanceof ActorCell a) {
        // first: a staged member with no follow yet takes sends directly
        rt.relocations().supersedeSource(a.id, a.generation);
      }
      rt.relocations().aggregateStaging.put(e.getKey(), e.getValue());
    }
    final PlacementBatches.Target self = rt.store().self();
    AggregateAuthority.Outcome answer;
    try {
      answer = instanceRow != null ? InstanceMoves.commit(rt, sealed, instanceRow.authority().payload())
          : new AggregateAuthority(rt.store().store(), AggregateSeal.STORE_TIMEOUT,
          PlacementBatches.DEFAULT_ATTEMPTS).commit(sealed, aggregateId, self);
    } catch (SpotkitException.Unavailable e) {
      // the CAS may have applied with its answer lost and the re-read failing too: never guess (spec 002 section
      // 10; spec 000 section 8: the target re-reads the same authority), or the source, reading it committed, hands
      // over a room that nobody opens (an Instance Spot's one-row CAS re-reads its row itself)
      if (instanceRow != null) {
        discard();
        throw e;
      }
      answer = confirmCommitted(self).orElseThrow(() -> {
        discard();
        return e;
      });
    } catch (RuntimeException e) {
      discard();
      throw e;
    }
    outcome = answer;
    if (!(outcome instanceof AggregateAuthority.Outcome.Committed committed)) {
      discard();
      return outcome;
    }
    open();
    if (committed.record() == null) {
      return outcome; // an Instance Spot: no inventory was written
    }
    // the replaced inventory's chunks take no space once this one is the aggregate's (best effort, after the open)
    rt.async(() -> InventoryTree.deleteReplaced(rt.store().store(), spot.id, committed.previousInventoryRoot(),
        committed.record().inventoryRoot(), AggregateSeal.STORE_TIMEOUT));
    return outcome;
  }

  /** Reads for the aggregate after a commit whose answer was lost: tries, ms apart (then doubling). */
  static final int CONFIRM_TRIES = 6;
  static final long CONFIRM_FIRST_WAIT_MS = 50;

  /**
   * After a CAS that failed without a definite answer: re-reads the aggregate, at most {@link #CONFIRM_TRIES} times
   * 50 ms apart and doubling (about 3 s in all, within the source's step timeout), until one read answers.
   *
   * @return Committed when the aggregate names this move (its AggregateId) and this node's owner; empty when a read
   *     shows it does not, or no read answered (the caller discards: the spec's failure scope).
   */
  private java.util.Optional<AggregateAuthority.Outcome.Committed> confirmCommitted(
      final PlacementBatches.Target self) {
    final AggregateAuthority authority = new AggregateAuthority(rt.store().store(), AggregateSeal.STORE_TIMEOUT,
        PlacementBatches.DEFAULT_ATTEMPTS);
    long waitMs = CONFIRM_FIRST_WAIT_MS;
    for (int i = 0; i < CONFIRM_TRIES; i++) {
      try {
        // the replaced inventory is not known here: its chunks stay (the next move's seal replaces them)
        return authority.committedMove(spot.id, aggregateId, self.routingIdHex()).map(a ->
            new AggregateAuthority.Outcome.Committed(a.record(), a.version(), null, a.record().inventoryRoot()));
      } catch (RuntimeException unanswered) {
        try {
          Thread.sleep(waitMs);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return java.util.Optional.empty();
        }
        waitMs *= 2;
      }
    }
    return java.util.Optional.empty();
  }

  private void open() {
    for (Cell c : staged.values()) {
      c.arrivedFrom = source;
    }
    final LocationRecords.Stored spotRow = LocationRecords.read(rt.store().store(), spot.key,
        AggregateSeal.STORE_TIMEOUT).orElseThrow();
    spot.storeRecord = spotRow.record();
    spot.storeVersion = spotRow.version();
    final List<ActorCell> members = new ArrayList<>();
    final List<dev.spotkit.core.location.AuthorityRecord> memberRows = new ArrayList<>();
    for (Cell c : staged.values()) {
      if (c instanceof ActorCell a) {
        members.add(a);
        memberRows.add(rows.get(a.id).authority());
      }
    }
    // the committed aggregate read once for all members (each row points at it)
    final List<dev.spotkit.core.location.AuthorityRecord> effective = AggregateAuthority.effectiveAll(
        rt.store().store(), memberRows, AggregateSeal.STORE_TIMEOUT);
    for (int i = 0; i < members.size(); i++) {
      final ActorCell a = members.get(i);
      a.storeRecord = LocationRecords.fromAuthority(a.key, effective.get(i));
      a.storeVersion = rows.get(a.id).version();
      a.membership = spot;
    }
    spot.members.addAll(members);
    spot.state = CellState.READY;
    rt.spots.put(spot.id, spot);
    if (spot.idle != null) {
      spot.idle.start(); // a moved Instance Spot is cleaned up when idle on its new node too (spec 003 section 6.2)
    }
    for (ActorCell a : members) {
      a.state = CellState.READY;
      final ActorCell old = rt.actors.put(a.id, a);
      if (old != null && old != a) {
        NodeRuntime.LOG.warn("{} replaced a stale cell of the same id", a.describe());
      }
    }
    final String spotKey = "spot:" + spot.id;
    spot.control(() -> {
      if (spot.applicationSignaled) { // spec 003 section 5.1: on the new owner, before its dispatch opens
        spot.relocationReadyCompleted(dev.spotkit.core.RelocationReadyOutcome.RELOCATED);
      }
      spot.mailbox.openWithBacklog(backlog.get(spotKey));
      rt.relocations().aggregateStaging.remove(spotKey, spot);
    });
    for (ActorCell a : members) {
      final String key = "actor:" + a.id;
      final List<Envelope> queue = backlog.get(key);
      a.control(() -> {
        a.mailbox.moveTo(spot.gate); // a SpotWide member runs on the Spot's gate
        a.onSpotGate = true;
        final SessionRelocationFrame.Seal seal = seals.get(a.id);
        final Relocations.Binding bound = bindings.get(a.id);
        a.control(() -> {
          a.mailbox.openWithBacklog(queue);
          rt.relocations().aggregateStaging.remove(key, a);
          commitSessionRoute(a, seal, bound);
        });
      });
    }
  }

  /**
   * Spec 000 section 7 step 6 and section 4.2 step 8: after the CAS and the queue opening, the one-way command 44
   * commit to the Session owner of a member whose binding this move sealed: route and location snapshot to this
   * node, held frames submitted, seal released; no reply is awaited. On the member's gate.
   */
  private void commitSessionRoute(final ActorCell c, final SessionRelocationFrame.Seal seal,
      final Relocations.Binding bound) {
    if (seal == null || bound == null || bound.owner() == null) {
      return;
    }
    rt.relocations().sendSessionRoute(bound.node(), new SessionRelocationFrame.Route(seal.relocationId(),
        seal.coordinatorFence(), Role.TARGET, bound.wire(c.id, c.generation), new SessionRouteAction.Commit(
        seal.currentRoute().authorityOwnerGeneration(), Relocations.routeOf(c))));
  }

  /**
   * Drops the staging: nothing was registered and nothing runs. Requests in the backlog are not answered: before
   * relay-ready the source restores the originals and answers them itself (spec 002 section 9.4). Idempotent, and
   * safe from two threads at once (an abort on the event loop racing the end of the staging).
   */
  public synchronized void discard() {
    staged.forEach((k, c) -> rt.relocations().aggregateStaging.remove(k, c));
    backlog.clear();
    for (Cell c : staged.values()) {
      c.timers.cancelAll();
    }
    staged.clear();
  }

  /**
   * The participants' keys ({@code spot:{id}}, {@code actor:{id}}) in inventory order.
   *
   * @return the keys.
   */
  public List<String> participantKeys() {
    return List.copyOf(staged.keySet());
  }

  /**
   * The staged Spot cell (registered only after {@link #commit}).
   *
   * @return the cell.
   */
  public SpotCell spot() {
    return spot;
  }
}
