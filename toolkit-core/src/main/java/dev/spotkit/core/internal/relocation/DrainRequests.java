package dev.spotkit.core.internal.relocation;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.ObjectRole;
import dev.spotkit.core.RelocateOptions;
import dev.spotkit.core.RelocateResult;
import dev.spotkit.core.SpotRelocationResult;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.runtime.NodeConfig;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.location.DrainRequestRecord;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.RecordDecodeException;
import dev.spotkit.core.location.StoreCalls;
import dev.spotkit.store.Condition;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The node side of an operator's drain request (issue 15, {@code spotkit-admin drain}; {@link DrainRequestRecord}):
 * with {@code MeshOptions.acceptAdminDrains(poll)} an object server with a mesh reads its own key
 * {@code admin-drain\0{MeshName}\0{hex(RoutingId)}} once per poll interval (one store read; nothing else while no
 * request is there). A {@code requested} record is taken with one conditional write to {@code accepted} (so it runs
 * at most once, and an admin that gave up first wins by deleting it), then the node runs its own host drain
 * ({@link HostDrains}, as {@code MeshNode.relocate(RelocateOptions)}) with the request's targets and deadline, and
 * writes {@code done} with what moved and what stayed, or {@code failed} with why, conditioned on the accepted
 * version. The answer is kept {@link #RESULT_RETENTION} for the admin to read.
 *
 * <p>One virtual thread per node, started with the node and ended by its close (it waits on the node's end between
 * polls). A store failure only skips that poll. Not API.
 */
public final class DrainRequests {
  /** How long a finished answer stays readable: 10 min. */
  public static final Duration RESULT_RETENTION = Duration.ofMinutes(10);
  /** Bound of each store call of the watcher. */
  private static final Duration STORE_TIMEOUT = Duration.ofSeconds(5);
  /** How long past its deadline a drain is awaited: a started room's two 30 s steps and a margin. */
  private static final Duration DRAIN_BOUND = Duration.ofSeconds(80);

  private final NodeRuntime rt;
  private final Duration poll;
  private final LocationStore store;
  private final String key;

  private DrainRequests(final NodeRuntime rt, final Duration poll) {
    this.rt = rt;
    this.poll = poll;
    this.store = rt.config().store();
    this.key = LocationKeys.adminDrain(rt.meshName().value(), rt.nodeRid().hex()).preimage();
  }

  /**
   * Starts the watcher when the node asked for it: an object server with a mesh whose {@code MeshOptions} set
   * {@code acceptAdminDrains}. Otherwise does nothing.
   *
   * @param rt the started node.
   */
  public static void watch(final NodeRuntime rt) {
    final NodeConfig.MeshSpec mesh = rt.config().mesh();
    if (mesh == null || mesh.adminDrainPoll() == null || rt.config().store() == null
        || rt.config().role() != ObjectRole.SERVER) {
      return;
    }
    final DrainRequests watcher = new DrainRequests(rt, mesh.adminDrainPoll());
    Thread.ofVirtual().name("spotkit-admin-drains-" + rt.nodeRid()).start(watcher::loop);
  }

  private void loop() {
    while (!rt.isClosing()) {
      if (dev.spotkit.core.internal.runtime.NodeWaits.endsWithin(rt, poll.toNanos())) {
        return; // the node ended
      }
      if (rt.isClosing()) {
        return;
      }
      try {
        pollOnce();
      } catch (SpotkitException e) {
        NodeRuntime.LOG.debug("admin drain poll of node {} skipped: {}", rt.nodeRid(), e.getMessage());
      }
    }
  }

  private void pollOnce() {
    final ReadResult read = StoreCalls.await(store.read(key), STORE_TIMEOUT, "read of " + LocationKeys
        .adminDrain(rt.meshName().value(), rt.nodeRid().hex()));
    if (!(read instanceof ReadResult.Found found)) {
      return;
    }
    final DrainRequestRecord request;
    try {
      request = DrainRequestRecord.decode(found.value());
    } catch (RecordDecodeException e) {
      NodeRuntime.LOG.warn("admin drain request for node {} is unreadable and ignored: {}", rt.nodeRid(),
          e.getMessage());
      return;
    }
    if (request.state() != DrainRequestRecord.State.REQUESTED) {
      return;
    }
    final DrainRequestRecord accepted = request.with(DrainRequestRecord.State.ACCEPTED, null, null);
    final Duration running = Duration.ofMillis(request.deadlineMs()).plus(DRAIN_BOUND).plus(RESULT_RETENTION);
    final StoreVersion version = put(found.version(), accepted, running);
    if (version == null) {
      return; // the admin withdrew it, or replaced it: nothing to do
    }
    NodeRuntime.LOG.info("admin drain request {} accepted by node {} (from {}, targets {}, deadline {} ms)",
        request.requestId(), rt.nodeRid(), request.requestedBy(), request.targets().isEmpty() ? "any Serving node"
        : request.targets(), request.deadlineMs());
    DrainRequestRecord answer;
    try {
      final RelocateResult result = HostDrains.drain(rt, options(request)).get(request.deadlineMs()
          + DRAIN_BOUND.toMillis(), TimeUnit.MILLISECONDS);
      answer = accepted.with(DrainRequestRecord.State.DONE, summary(result), null);
    } catch (ExecutionException e) {
      final Throwable cause = e.getCause() == null ? e : e.getCause();
      answer = accepted.with(DrainRequestRecord.State.FAILED, null, String.valueOf(cause.getMessage()));
    } catch (TimeoutException e) {
      answer = accepted.with(DrainRequestRecord.State.FAILED, null, "the drain did not end within its deadline "
          + request.deadlineMs() + " ms plus " + DRAIN_BOUND.toSeconds() + " s");
    } catch (SpotkitException e) {
      answer = accepted.with(DrainRequestRecord.State.FAILED, null, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    if (put(version, answer, RESULT_RETENTION) == null) {
      NodeRuntime.LOG.warn("admin drain request {} of node {}: the answer could not be written (the record"
          + " changed)", request.requestId(), rt.nodeRid());
    }
  }

  /** One conditional put on the version read; the new version, or null on Conflict. */
  private StoreVersion put(final StoreVersion expected, final DrainRequestRecord value, final Duration retention) {
    final WriteResult result = StoreCalls.await(store.write(WriteBatch.of(List.of(new Condition.ExpectVersion(key,
        expected)), List.of(Mutation.Put.expiring(key, value.encode(), retention)))), STORE_TIMEOUT,
        "write of admin drain request " + value.requestId());
    return result instanceof WriteResult.Applied applied ? applied.version(key) : null;
  }

  private static RelocateOptions options(final DrainRequestRecord request) {
    final RelocateOptions options;
    if (request.targets().isEmpty()) {
      options = RelocateOptions.drainAnywhere();
    } else {
      final NodeRid[] targets = new NodeRid[request.targets().size()];
      for (int i = 0; i < targets.length; i++) {
        try {
          targets[i] = new NodeRid(Long.parseUnsignedLong(request.targets().get(i), 16));
        } catch (NumberFormatException e) {
          throw new SpotkitException.InvalidOperation("drain target '" + request.targets().get(i) + "' is not a"
              + " NodeRid (1..16 hex digits)", e);
        }
      }
      options = RelocateOptions.drainTo(targets);
    }
    return options.deadline(Duration.ofMillis(request.deadlineMs()));
  }

  private static DrainRequestRecord.Result summary(final RelocateResult r) {
    return new DrainRequestRecord.Result(r.outcome().name().toLowerCase(java.util.Locale.ROOT), r.actors().size(),
        r.rooms().size(), r.roomMembers(), r.kept().size(), r.actors().stream().map(a -> a.id().value()).toList(),
        r.rooms().stream().map(DrainRequests::room).toList(), r.kept().stream().map(k -> new DrainRequestRecord.Kept(
            k.kind().name(), k.id(), k.reason().name(), k.servingHere())).toList());
  }

  private static DrainRequestRecord.Room room(final SpotRelocationResult room) {
    return new DrainRequestRecord.Room(room.spot().id().value(), room.members());
  }
}
