package dev.spotkit.core;

import dev.spotkit.core.location.DrainRequestRecord;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.LocationQuery;
import dev.spotkit.core.location.MeshNodeDescriptorRecord;
import dev.spotkit.core.location.NodeCapacityRecord;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.RecordDecodeException;
import dev.spotkit.core.location.StoreCalls;
import dev.spotkit.store.Condition;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanCursor;
import dev.spotkit.store.ScanEntry;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreLimits;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * {@link MeshAdmin} over the location package: scans the descriptor and drain-request prefixes page by page (same
 * point in time, restarted on ScanExpired at most 3 times, at most 1,000 pages), reads each node's owner lease
 * ({@link NodeDirectory#isLive}) and capacity record, and writes drain requests ({@link DrainRequestRecord}).
 * Stateless apart from the store; any thread.
 */
final class MeshAdminImpl implements MeshAdmin {
  private static final int PAGE = 200;
  private static final int MAX_PAGES = 1000;
  private static final int MAX_RESTARTS = 3;
  /** How often {@link #awaitDrain} reads the request. */
  private static final Duration AWAIT_POLL = Duration.ofMillis(100);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final LocationStore store;
  private final Duration timeout;
  private final LocationQueries locations;

  MeshAdminImpl(final LocationStore store, final Duration timeout) {
    this.store = store;
    this.timeout = timeout;
    this.locations = new LocationQueriesImpl(new LocationQuery(store, timeout), () -> false, "spotkit-admin");
  }

  @Override
  public List<NodeStatus> nodes(final MeshName meshOrNull) {
    final String prefix = meshOrNull == null ? LocationKeys.meshNodePrefix()
        : LocationKeys.meshNodePrefix(meshOrNull.value());
    final NodeDirectory directory = new NodeDirectory(store, timeout);
    final List<NodeStatus> out = new ArrayList<>();
    for (ScanEntry entry : scanAll(prefix)) {
      final MeshNodeDescriptorRecord record;
      try {
        record = MeshNodeDescriptorRecord.decode(entry.value());
      } catch (RecordDecodeException e) {
        throw new SpotkitException.DataLost("descriptor " + StoreLimits.printable(entry.key()) + " cannot be decoded: "
            + e.getMessage(), e);
      }
      final MeshNodeDescriptorRecord.Descriptor d = record.descriptor();
      final boolean live = directory.isLive(d.meshName(), d.routingIdHex());
      final NodeCapacityRecord capacity = capacity(d);
      out.add(new NodeStatus(new MeshName(d.meshName()), rid(d.routingIdHex()), NodeState.valueOf(d.state().name()),
          live, ObjectRole.valueOf(d.objectRole().name()), d.endpoint(), d.placementWeight(),
          new Usage(capacity.actors().active(), capacity.actors().reserved(), capacity.actors().limit()),
          new Usage(capacity.spots().active(), capacity.spots().reserved(), capacity.spots().limit()),
          Optional.ofNullable(d.entrySpotId()), d.updatedAtEpochMs()));
    }
    out.sort(Comparator.comparing((NodeStatus n) -> n.meshName().value()).thenComparing(n -> n.node().hex()));
    return List.copyOf(out);
  }

  /** The node's capacity record (the source of truth for usage), or the descriptor's copy when it has none. */
  private NodeCapacityRecord capacity(final MeshNodeDescriptorRecord.Descriptor d) {
    final String key = LocationKeys.nodeCapacity(d.meshName(), d.routingIdHex()).preimage();
    final ReadResult read = StoreCalls.await(store.read(key), timeout, "read of capacity record "
        + StoreLimits.printable(key));
    if (read instanceof ReadResult.Found found) {
      try {
        return NodeCapacityRecord.decode(found.value());
      } catch (RecordDecodeException e) {
        throw new SpotkitException.DataLost("capacity record " + StoreLimits.printable(key) + " cannot be decoded: "
            + e.getMessage(), e);
      }
    }
    return new NodeCapacityRecord(slots(d.actors()), slots(d.spots()), List.of());
  }

  private static NodeCapacityRecord.Slots slots(final MeshNodeDescriptorRecord.Usage u) {
    return new NodeCapacityRecord.Slots(u.active(), u.reserved(), u.limit());
  }

  @Override
  public LocationQueries locations() {
    return locations;
  }

  @Override
  public List<DrainStatus> drainRequests(final MeshName meshOrNull) {
    final String prefix = LocationKeys.adminDrainPrefix() + (meshOrNull == null ? "" : meshOrNull.value() + "\0");
    final List<DrainStatus> out = new ArrayList<>();
    for (ScanEntry entry : scanAll(prefix)) {
      final String[] parts = entry.key().split("\0", -1);
      if (parts.length != 3) {
        continue; // not a key this build writes
      }
      out.add(status(new MeshName(parts[1]), rid(parts[2]), decode(entry.key(), entry.value())));
    }
    out.sort(Comparator.comparing((DrainStatus s) -> s.meshName().value()).thenComparing(s -> s.node().hex()));
    return List.copyOf(out);
  }

  @Override
  public DrainStatus requestDrain(final MeshName mesh, final NodeRid node, final Set<NodeRid> targets,
      final Duration deadline, final Duration pickUpWithin, final String requestedBy) {
    checkArguments(mesh, node, targets, deadline, pickUpWithin, requestedBy);
    final List<NodeStatus> nodes = nodes(mesh);
    final NodeStatus subject = nodes.stream().filter(n -> n.node().equals(node) && n.live()).findFirst()
        .orElseThrow(() -> new SpotkitException.NotFound("no live node " + node + " in mesh " + mesh + "; list the"
            + " nodes with spotkit-admin nodes"));
    if (subject.state() != NodeState.SERVING) {
      throw new SpotkitException.InvalidOperation("node " + node + " is " + subject.state() + ", not SERVING; only a"
          + " Serving node is drained");
    }
    for (NodeRid target : targets) {
      if (target.equals(node) || nodes.stream().noneMatch(n -> n.node().equals(target) && n.live()
          && n.state() == NodeState.SERVING)) {
        throw new SpotkitException.InvalidOperation("drain target " + target + " is " + (target.equals(node)
            ? "the node being drained" : "not a live Serving node of mesh " + mesh));
      }
    }
    final String key = key(mesh, node);
    final ReadResult read = StoreCalls.await(store.read(key), timeout, "read of drain request of node " + node);
    final Condition condition;
    if (read instanceof ReadResult.Found found) {
      final DrainRequestRecord existing = decode(key, found.value());
      if (!existing.state().finished()) {
        throw new SpotkitException.InvalidOperation("drain request " + existing.requestId() + " to node " + node
            + " is still " + existing.state().wire() + " (by " + existing.requestedBy() + "); wait for its answer");
      }
      condition = new Condition.ExpectVersion(key, found.version());
    } else {
      condition = new Condition.ExpectAbsent(key);
    }
    final byte[] id = new byte[16];
    RANDOM.nextBytes(id);
    final DrainRequestRecord request = new DrainRequestRecord(HexFormat.of().formatHex(id),
        DrainRequestRecord.State.REQUESTED, requestedBy, System.currentTimeMillis(), deadline.toMillis(),
        targets.stream().map(NodeRid::hex).sorted().toList(), null, null);
    final WriteResult written = StoreCalls.await(store.write(WriteBatch.of(List.of(condition),
        List.of(Mutation.Put.expiring(key, request.encode(), pickUpWithin)))), timeout, "write of drain request to"
        + " node " + node);
    if (!(written instanceof WriteResult.Applied)) {
      throw new SpotkitException.InvalidOperation("another drain request to node " + node + " was written at the"
          + " same time; read it with spotkit-admin relocations");
    }
    return status(mesh, node, request);
  }

  private static void checkArguments(final MeshName mesh, final NodeRid node, final Set<NodeRid> targets,
      final Duration deadline, final Duration pickUpWithin, final String requestedBy) {
    if (mesh == null || node == null || targets == null || targets.stream().anyMatch(t -> t == null)
        || deadline == null || pickUpWithin == null || requestedBy == null) {
      throw new SpotkitException.InvalidOperation("requestDrain needs a MeshName, a NodeRid, a target set (maybe"
          + " empty, no null), a deadline, a pick-up time and who asks");
    }
    if (deadline.toMillis() < 1 || deadline.toMillis() > DrainRequestRecord.MAX_DEADLINE_MS) {
      throw new SpotkitException.InvalidOperation("drain deadline " + deadline + " must be 1 ms..1 h");
    }
    if (pickUpWithin.compareTo(Duration.ofSeconds(1)) < 0 || pickUpWithin.compareTo(Duration.ofHours(1)) > 0) {
      throw new SpotkitException.InvalidOperation("pick-up time " + pickUpWithin + " must be 1 s..1 h");
    }
    if (requestedBy.isEmpty() || requestedBy.length() > 200) {
      throw new SpotkitException.InvalidOperation("requestedBy must be 1..200 characters");
    }
  }

  @Override
  public Optional<DrainStatus> drainStatus(final MeshName mesh, final NodeRid node) {
    final String key = key(mesh, node);
    final ReadResult read = StoreCalls.await(store.read(key), timeout, "read of drain request of node " + node);
    return read instanceof ReadResult.Found found ? Optional.of(status(mesh, node, decode(key, found.value())))
        : Optional.empty();
  }

  @Override
  public DrainStatus awaitDrain(final DrainStatus request, final Duration waitFor) {
    if (request == null) {
      throw new SpotkitException.InvalidOperation("awaitDrain needs the request requestDrain returned");
    }
    final Deadline deadline = Deadline.after(waitFor);
    final String key = key(request.meshName(), request.node());
    while (true) {
      final ReadResult read = StoreCalls.await(store.read(key), timeout, "read of drain request of node "
          + request.node());
      if (!(read instanceof ReadResult.Found found)) {
        return request.withState(DrainState.WITHDRAWN); // expired before any node took it
      }
      final DrainRequestRecord record = decode(key, found.value());
      if (!record.requestId().equals(request.requestId())) {
        return request.withState(DrainState.WITHDRAWN); // replaced by another request
      }
      final DrainStatus seen = status(request.meshName(), request.node(), record);
      if (seen.state().answered()) {
        return seen;
      }
      if (deadline.isExpired()) {
        if (record.state() == DrainRequestRecord.State.REQUESTED) {
          final WriteResult withdrawn = StoreCalls.await(store.write(WriteBatch.of(List.of(
              new Condition.ExpectVersion(key, found.version())), List.of(new Mutation.Delete(key)))), timeout,
              "delete of drain request " + record.requestId());
          if (withdrawn instanceof WriteResult.Applied) {
            return seen.withState(DrainState.WITHDRAWN);
          }
          continue; // the node took it meanwhile: read its state once more
        }
        return seen;
      }
      try {
        Thread.sleep(Math.min(AWAIT_POLL.toMillis(), Math.max(1, deadline.remaining().toMillis())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return seen;
      }
    }
  }

  private static String key(final MeshName mesh, final NodeRid node) {
    return LocationKeys.adminDrain(mesh.value(), node.hex()).preimage();
  }

  private static DrainRequestRecord decode(final String key, final dev.spotkit.store.StoreBytes value) {
    try {
      return DrainRequestRecord.decode(value);
    } catch (RecordDecodeException e) {
      throw new SpotkitException.DataLost("drain request " + StoreLimits.printable(key) + " cannot be decoded: "
          + e.getMessage(), e);
    }
  }

  private static DrainStatus status(final MeshName mesh, final NodeRid node, final DrainRequestRecord r) {
    final Optional<DrainOutcome> outcome = Optional.ofNullable(r.result()).map(x -> new DrainOutcome(
        RelocateResult.Outcome.valueOf(x.outcome().toUpperCase(Locale.ROOT)), x.actorsMoved(), x.roomsMoved(),
        x.membersMoved(), x.keptCount(), x.actors(), x.rooms().stream().map(room -> new MovedRoom(room.id(),
        room.members())).toList(), x.kept().stream().map(k -> new KeptUnit(RelocateResult.UnitKind.valueOf(k.kind()),
        k.id(), RelocateResult.Reason.valueOf(k.reason()), k.servingHere())).toList()));
    return new DrainStatus(mesh, node, r.requestId(), DrainState.valueOf(r.state().name()), r.requestedBy(),
        r.requestedAtEpochMs(), Duration.ofMillis(r.deadlineMs()), r.targets().stream().map(MeshAdminImpl::rid)
        .toList(), outcome, Optional.ofNullable(r.error()));
  }

  private static NodeRid rid(final String hex) {
    try {
      return new NodeRid(Long.parseUnsignedLong(hex, 16));
    } catch (NumberFormatException | SpotkitException.InvalidOperation e) {
      throw new SpotkitException.DataLost("RoutingId '" + hex + "' in the store is not a NodeRid (1..16 hex"
          + " digits, non-zero)", e);
    }
  }

  private List<ScanEntry> scanAll(final String prefix) {
    for (int restart = 0; restart <= MAX_RESTARTS; restart++) {
      final List<ScanEntry> entries = new ArrayList<>();
      Optional<ScanCursor> cursor = Optional.empty();
      for (int page = 0; page < MAX_PAGES; page++) {
        final ScanResult result = StoreCalls.await(store.scan(new ScanRequest(prefix, cursor, PAGE)), timeout,
            "scan of " + StoreLimits.printable(prefix));
        if (!(result instanceof ScanResult.Page p)) {
          cursor = null;
          break;
        }
        entries.addAll(p.entries());
        cursor = p.next();
        if (cursor.isEmpty()) {
          return entries;
        }
      }
      if (cursor != null) {
        throw new SpotkitException.Unavailable("scan of " + StoreLimits.printable(prefix) + " ran over " + MAX_PAGES
            + " pages; the provider keeps returning a next page");
      }
    }
    throw new SpotkitException.Unavailable("scan of " + StoreLimits.printable(prefix) + " expired "
        + (MAX_RESTARTS + 1) + " times in a row (ScanExpired); retry later");
  }
}
