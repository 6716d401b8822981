package dev.spotkit.core.location;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.Condition;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanCursor;
import dev.spotkit.store.ScanEntry;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreLimits;
import dev.spotkit.store.StoreNow;
import dev.spotkit.store.StoreVersion;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishing this node's MeshNode descriptor and finding the live nodes of a mesh (spec 002 section 4).
 *
 * <p>Publishing is one conditional write that also pins the publisher's own owner lease record, so a host run
 * whose lease is gone or taken over cannot overwrite the descriptor. A publish at the revision already stored
 * is a harmless no-op ({@link Published.Unchanged}); a lower one is {@link Published.Stale}; neither writes.
 *
 * <p>Reading a mesh scans {@code mesh-node\0{MeshName}\0} page by page (same point in time), starts over on
 * ScanExpired a bounded number of times, then reads each distinct owner lease directly and keeps only nodes
 * whose lease exists, has the descriptor's LeaseGeneration and has not expired by StoreNow. An unreadable
 * descriptor (another build's recordVersion, malformed bytes) is left out and logged, never guessed.
 *
 * <p>Blocking: every method waits for the store with the call timeout given at construction; call from virtual
 * threads, never from a Netty event loop. Thread-safety: stateless apart from the store; any thread.
 */
public final class NodeDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(NodeDirectory.class);
  /** Default page size of the descriptor scan. */
  public static final int DEFAULT_PAGE_SIZE = 100;
  /** How often a scan starts over on ScanExpired before the read fails Unavailable. */
  public static final int MAX_SCAN_RESTARTS = 3;
  /** At most this many pages per scan (1,000,000 nodes at 1,000 a page): a bound on a runaway provider. */
  public static final int MAX_PAGES = 1000;
  private static final int PUBLISH_ATTEMPTS = 8;

  private final LocationStore store;
  private final Duration timeout;
  private final int pageSize;

  /**
   * A directory over {@code store}.
   *
   * @param store the Location Store.
   * @param timeout the longest wait of each store call, positive.
   * @param pageSize descriptors per scan page, 1..1000.
   * @throws IllegalArgumentException when the page size or timeout is out of range.
   */
  public NodeDirectory(final LocationStore store, final Duration timeout, final int pageSize) {
    this.store = Objects.requireNonNull(store, "store");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("store call timeout " + timeout + " must be positive");
    }
    if (pageSize < 1 || pageSize > StoreLimits.MAX_SCAN_ENTRIES) {
      throw new IllegalArgumentException("descriptor page size " + pageSize + " is outside 1.."
          + StoreLimits.MAX_SCAN_ENTRIES);
    }
    this.pageSize = pageSize;
  }

  /**
   * A directory with {@link #DEFAULT_PAGE_SIZE}.
   *
   * @param store the Location Store.
   * @param timeout the longest wait of each store call, positive.
   */
  public NodeDirectory(final LocationStore store, final Duration timeout) {
    this(store, timeout, DEFAULT_PAGE_SIZE);
  }

  /** Outcome of {@link #publish(MeshNodeDescriptorRecord)}. */
  public sealed interface Published {
    /**
     * The descriptor was stored.
     *
     * @param version its new StoreVersion.
     * @param now StoreNow of the write.
     */
    record Stored(StoreVersion version, StoreNow now) implements Published {
    }

    /**
     * The same revision is already stored: a harmless replay, nothing written (spec 002 section 4).
     *
     * @param revision the stored revision.
     */
    record Unchanged(long revision) implements Published {
    }

    /**
     * A higher revision of this host run is already stored: ignored, nothing written.
     *
     * @param storedRevision the stored revision, above the one offered.
     */
    record Stale(long storedRevision) implements Published {
    }

    /**
     * The publisher's owner lease is missing, expired or another run's: nothing written; the host must stop
     * publishing (spec 002 section 5).
     *
     * @param why the reason.
     */
    record LeaseInvalid(String why) implements Published {
    }
  }

  /**
   * The revision after {@code current}.
   *
   * @param current the revision last published, 1..2^63-1.
   * @return {@code current + 1}.
   * @throws SpotkitException.GenerationExhausted when {@code current} is 2^63-1: the host switches to Error and
   *     stops publishing (spec 002 section 4).
   */
  public static long nextRevision(final long current) {
    Generations.checkStored("descriptorRevision", current);
    if (current == Long.MAX_VALUE) {
      throw new SpotkitException.GenerationExhausted("descriptorRevision " + current + " is 2^63-1: no next"
          + " revision exists, so the host switches to Error and stops publishing (spec 002 section 4)");
    }
    return current + 1;
  }

  /**
   * Publishes {@code record} at {@code mesh-node\0{MeshName}\0{hex(RoutingId)}} without expiry, conditioned on
   * the publisher's owner lease and on the descriptor version read. A descriptor of another host run (a previous
   * run of the same RoutingId) is replaced whatever its revision; the same run's must be strictly older.
   *
   * @param record the whole descriptor (at most 1 MiB encoded).
   * @return Stored, Unchanged, Stale or LeaseInvalid.
   * @throws SpotkitException.Unavailable when the store fails or the key keeps changing for 8 attempts.
   * @throws dev.spotkit.store.StoreLimitException when the encoded descriptor exceeds 1 MiB (LOC-05: the
   *     caller fails startup, nothing is published).
   */
  public Published publish(final MeshNodeDescriptorRecord record) {
    final MeshNodeDescriptorRecord.Descriptor d = record.descriptor();
    final String key = LocationKeys.meshNode(d.meshName(), d.routingIdHex()).preimage();
    final Mutation.Put put = Mutation.Put.of(key, record.encode());
    for (int attempt = 0; attempt < PUBLISH_ATTEMPTS; attempt++) {
      final ReadResult read = StoreCalls.await(store.read(key), timeout, "read of descriptor " + key);
      final Condition current;
      if (read instanceof ReadResult.Found found) {
        final Optional<MeshNodeDescriptorRecord> stored = decodeOrEmpty(found.value(), key);
        if (stored.isPresent() && sameRun(stored.get(), record)) {
          final long revision = stored.get().descriptorRevision();
          if (revision == record.descriptorRevision()) {
            return new Published.Unchanged(revision);
          }
          if (revision > record.descriptorRevision()) {
            return new Published.Stale(revision);
          }
        }
        current = new Condition.ExpectVersion(key, found.version());
      } else {
        current = new Condition.ExpectAbsent(key);
      }
      final Leases.Check lease = Leases.check(store, record.ownerId(), record.leaseGeneration(), timeout);
      if (!lease.valid()) {
        return new Published.LeaseInvalid(lease.why());
      }
      final WriteResult result = StoreCalls.await(store.write(WriteBatch.of(
          List.of(current, lease.condition().get()), List.of(put))), timeout, "write of descriptor " + key);
      if (result instanceof WriteResult.Applied applied) {
        return new Published.Stored(applied.version(key), applied.now());
      }
    }
    throw new SpotkitException.Unavailable("descriptor " + LocationKeys.meshNode(d.meshName(), d.routingIdHex())
        + " or its owner lease changed under " + PUBLISH_ATTEMPTS + " publish attempts in a row; retry later");
  }

  private static boolean sameRun(final MeshNodeDescriptorRecord a, final MeshNodeDescriptorRecord b) {
    return a.ownerId().equals(b.ownerId()) && a.leaseGeneration().equals(b.leaseGeneration())
        && a.descriptor().lifecycleGeneration() == b.descriptor().lifecycleGeneration();
  }

  private static Optional<MeshNodeDescriptorRecord> decodeOrEmpty(final dev.spotkit.store.StoreBytes bytes,
      final String key) {
    try {
      return Optional.of(MeshNodeDescriptorRecord.decode(bytes));
    } catch (RecordDecodeException e) {
      LOG.warn("descriptor {} is unreadable and left out: {}", StoreLimits.printable(key), e.getMessage());
      return Optional.empty();
    }
  }

  /**
   * Whether one node of a mesh is live by the same rule as {@link #readMesh}: its descriptor is present and
   * readable, and its owner lease is present, of the descriptor's LeaseGeneration and not expired by StoreNow
   * (spec 002 sections 4 and 5). A killed node's descriptor stays; its lease lapses one TTL after its last renewal.
   *
   * @param meshName the RouteMesh name, without a 0x00 byte.
   * @param routingIdHex the node's RoutingId, 16 lowercase hex digits.
   * @return false when the descriptor is missing or unreadable or its lease is not valid.
   * @throws SpotkitException.Unavailable when the store fails or does not answer within the timeout (not proof
   *     either way).
   */
  public boolean isLive(final String meshName, final String routingIdHex) {
    final String key = LocationKeys.meshNode(meshName, routingIdHex).preimage();
    final ReadResult read = StoreCalls.await(store.read(key), timeout, "read of descriptor " + key);
    if (!(read instanceof ReadResult.Found found)) {
      return false;
    }
    final Optional<MeshNodeDescriptorRecord> record = decodeOrEmpty(found.value(), key);
    return record.isPresent()
        && Leases.check(store, record.get().ownerId(), record.get().leaseGeneration(), timeout).valid();
  }

  /**
   * The live nodes of one mesh, in RoutingId order: every descriptor of the mesh's same-point-in-time scan whose
   * owner lease is present, of the descriptor's LeaseGeneration and not expired by StoreNow. States other than
   * Serving are included (placement filters them, operators see them). Leaves the records of gone nodes alone
   * (see {@link #readMesh(String, boolean)}).
   *
   * @param meshName the RouteMesh name, without a 0x00 byte.
   * @return the live peers, immutable; empty when the mesh has none.
   * @throws SpotkitException.Unavailable when the store fails, or the scan expired more than
   *     {@value #MAX_SCAN_RESTARTS} times in a row, or ran over {@value #MAX_PAGES} pages.
   */
  public List<NodePeer> readMesh(final String meshName) {
    return readMesh(meshName, false);
  }

  /**
   * {@link #readMesh(String)}, optionally sweeping what it finds of gone nodes: the descriptor (mesh membership) of
   * a node whose owner lease is gone for good (missing, or another run's) is deleted together with that node's
   * capacity record, in one batch conditioned on the descriptor's version as scanned and on the lease still being
   * gone (crash recovery, issue 15; spec 002 section 11: a descriptor is reclaimed through its own lease expiry,
   * never by an owner sweep), with that run's Entry Spot row when it still names that run. A node that stopped
   * cleanly removed both itself; a killed one leaves them until a reader sweeps them. Rows that still hold slots of
   * that node then find its capacity record gone and return nothing ({@link PlacementBatches#sweepAbandoned}). A
   * sweep that conflicts is left for the next reader.
   *
   * @param meshName the RouteMesh name, without a 0x00 byte.
   * @param sweepGone true to sweep the records of gone nodes.
   * @return the live peers, immutable; empty when the mesh has none.
   * @throws SpotkitException.Unavailable when the store fails, or the scan expired more than
   *     {@value #MAX_SCAN_RESTARTS} times in a row, or ran over {@value #MAX_PAGES} pages.
   */
  public List<NodePeer> readMesh(final String meshName, final boolean sweepGone) {
    final List<NodePeer> candidates = new ArrayList<>();
    final Map<NodePeer, ScanEntry> entries = new HashMap<>();
    for (ScanEntry entry : scanAll(LocationKeys.meshNodePrefix(meshName))) {
      decodeOrEmpty(entry.value(), entry.key()).map(NodePeer::of).ifPresent(peer -> {
        candidates.add(peer);
        entries.put(peer, entry);
      });
    }
    final Map<String, Leases.Check> leases = new HashMap<>();
    final List<NodePeer> live = new ArrayList<>();
    for (NodePeer peer : candidates) {
      final Leases.Check check = leases.computeIfAbsent(peer.ownerId() + "\0" + peer.leaseGeneration(),
          k -> Leases.check(store, peer.ownerId(), peer.leaseGeneration(), timeout));
      if (check.valid()) {
        live.add(peer);
      } else {
        LOG.debug("node {} of mesh {} left out: {}", peer.routingIdHex(), meshName, check.why());
        if (sweepGone && check.gone()) {
          sweep(peer, entries.get(peer), check);
        }
      }
    }
    return List.copyOf(live);
  }

  /**
   * Deletes a gone node's descriptor, capacity record and Entry Spot row (a run's Entry Spot id is never used again,
   * and it holds no capacity) while the scanned version, the Entry Spot row's version and the lease's absence hold.
   */
  private void sweep(final NodePeer peer, final ScanEntry entry, final Leases.Check check) {
    final String capKey = LocationKeys.nodeCapacity(peer.meshName(), peer.routingIdHex()).preimage();
    final List<Condition> conditions = new ArrayList<>(List.of(new Condition.ExpectVersion(entry.key(),
        entry.version()), check.deadCondition().orElseThrow()));
    final List<Mutation> mutations = new ArrayList<>(List.of(new Mutation.Delete(entry.key()),
        new Mutation.Delete(capKey)));
    final String entrySpotId = decodeOrEmpty(entry.value(), entry.key()).map(r -> r.descriptor().entrySpotId())
        .orElse(null);
    if (entrySpotId != null) {
      final String entryKey = ObjectKey.spot(entrySpotId).logicalKey().preimage();
      if (StoreCalls.await(store.read(entryKey), timeout, "read of Entry Spot row " + entrySpotId)
          instanceof ReadResult.Found found && ownedBy(found, peer.ownerId())) {
        conditions.add(new Condition.ExpectVersion(entryKey, found.version()));
        mutations.add(new Mutation.Delete(entryKey));
      }
    }
    final WriteBatch batch = WriteBatch.of(conditions, mutations);
    try {
      final WriteResult result = StoreCalls.await(store.write(batch), timeout, "sweep of gone node "
          + peer.routingIdHex());
      if (result instanceof WriteResult.Applied) {
        LOG.info("swept node {} of mesh {} (descriptor, capacity record, Entry Spot row): {}", peer.routingIdHex(),
            peer.meshName(), check.why());
      }
    } catch (SpotkitException.Unavailable e) {
      LOG.debug("sweep of gone node {} did not apply now: {}", peer.routingIdHex(), e.getMessage());
    }
  }

  private static boolean ownedBy(final ReadResult.Found row, final String ownerId) {
    try {
      return AuthorityRecord.decode(row.value()).ownerId().equals(ownerId);
    } catch (RecordDecodeException e) {
      return false;
    }
  }

  private List<ScanEntry> scanAll(final String prefix) {
    for (int restart = 0; restart <= MAX_SCAN_RESTARTS; restart++) {
      final List<ScanEntry> entries = new ArrayList<>();
      Optional<ScanCursor> cursor = Optional.empty();
      boolean expired = false;
      for (int page = 0; page < MAX_PAGES; page++) {
        final ScanResult result = StoreCalls.await(store.scan(new ScanRequest(prefix, cursor, pageSize)), timeout,
            "scan of " + StoreLimits.printable(prefix));
        if (result instanceof ScanResult.Page p) {
          entries.addAll(p.entries());
          cursor = p.next();
          if (cursor.isEmpty()) {
            return entries;
          }
        } else {
          expired = true;
          break;
        }
      }
      if (!expired) {
        throw new SpotkitException.Unavailable("scan of " + StoreLimits.printable(prefix) + " ran over "
            + MAX_PAGES + " pages of " + pageSize + "; the provider keeps returning a next page");
      }
      LOG.debug("scan of {} expired; starting over ({} of {})", StoreLimits.printable(prefix), restart + 1,
          MAX_SCAN_RESTARTS);
    }
    throw new SpotkitException.Unavailable("scan of " + StoreLimits.printable(prefix) + " expired "
        + (MAX_SCAN_RESTARTS + 1) + " times in a row (ScanExpired); retry later");
  }
}
