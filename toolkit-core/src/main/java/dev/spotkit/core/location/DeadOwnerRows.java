package dev.spotkit.core.location;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.ScanCursor;
import dev.spotkit.store.ScanEntry;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * The row part of the background dead-owner sweep (crash recovery, issue 15: "rows and capacity of dead owners are
 * swept"): one bounded pass over the authority rows of one mesh, page by page, that removes each row whose owner run
 * is gone, with exactly the batches the on-access recovery uses, so nothing here decides more than they do:
 * <ul>
 *   <li>a Ready row: {@link PlacementBatches#sweepAbandoned} (as {@code getOrCreate} and Instance intent do): the
 *   row is deleted and its active slots are retired from its node's capacity record in one batch, conditioned on the
 *   row's StoreVersion as scanned and on the owner's lease still being gone for good (missing, or another run's);
 *   a lease record that is only late, or unreadable, is not proof, and the row stays (spec 002 sections 3.3 and 5:
 *   the lease record is gone from the store at least one fencing margin after its run stopped admitting work);</li>
 *   <li>a Creating row: {@link PlacementBatches#abortAbandoned} (as a waiting {@code getOrCreate} and Instance
 *   intent do, spec 000 section 2 step 7): aborted, its reserved slots returned, once its owner run's lease is no
 *   longer valid.</li>
 * </ul>
 * A row that points at its room's aggregate ({@link AggregatePointer}) is judged by the aggregate's owner, as
 * routing and the batches resolve it. Rows of {@code selfOwnerId} and rows whose owner's lease is valid are never
 * written: each owner's lease is read once per pass, and only a row whose owner failed that read costs a batch. A
 * batch that finds the row changed (Conflict: another node swept or re-created it) is not an error.
 *
 * <p>Rows are read by same-point-in-time scans of {@code authority\0actor\0} then {@code authority\0spot\0}, at most
 * {@value #PAGE_SIZE} rows a page and at most {@code maxPages} pages a pass; a pass that stops at its page bound
 * returns where it stopped, so the next pass goes on from there (or from that kind's first page when the provider
 * expired the cursor meanwhile: ScanExpired). Only rows placed in the given mesh are touched (a store may hold other
 * meshes, whose nodes decide for themselves).
 *
 * <p>Blocking: waits for each store call at most the timeout given; virtual threads only. Thread-safety: any
 * thread; one pass at a time per instance is the caller's choice (two at once are harmless: every write is a CAS).
 */
public final class DeadOwnerRows {
  /** Rows read per store scan page: {@value}. */
  public static final int PAGE_SIZE = 200;

  private final LocationStore store;
  private final PlacementBatches batches;
  private final Duration timeout;
  /** How long an owner run must have been seen gone before its Ready rows are swept, ms of store time. */
  private final long graceMillis;
  /**
   * When each owner run ({@code ownerId \0 LeaseGeneration}) was first seen gone by a pass: the StoreNow (epoch ms)
   * of the lease read that found it gone, so the grace runs on the store's clock, not this node's.
   * Touched by the passes only (one at a time, see the class comment); cleared past {@value #MAX_TRACKED} runs.
   */
  private final Map<String, Long> goneSince = new java.util.concurrent.ConcurrentHashMap<>();
  /** Owner runs tracked in {@link #goneSince} at most: {@value}. */
  private static final int MAX_TRACKED = 10_000;

  /**
   * Where a pass starts or stopped.
   *
   * @param kind the authority kind being scanned.
   * @param cursor the provider's cursor of the next page of that kind, or empty for its first page.
   */
  public record Position(AuthorityKind kind, Optional<ScanCursor> cursor) {
    /** The first page of the Actor rows: where a full cycle starts. */
    public static final Position START = new Position(AuthorityKind.ACTOR, Optional.empty());

    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public Position {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(cursor, "cursor");
    }
  }

  /**
   * What one pass did.
   *
   * @param swept Ready rows of dead owners deleted (their slots retired) by this pass.
   * @param aborted Creating rows of dead owners aborted (their reserved slots returned) by this pass.
   * @param pages store scan pages read (ScanExpired answers included), 0..maxPages.
   * @param next where the next pass starts: {@link Position#START} once a full cycle over both kinds ended.
   * @param failure the first row-level failure of this pass (an unreadable row, or a capacity record that disagrees
   *     with the row, {@link SpotkitException.InternalFailure}): the row was left alone and the pass went on; empty
   *     when none.
   * @param waiting Ready rows of dead owners this pass left for their grace (see the four-argument constructor),
   *     0 or more: a pass after the grace sweeps them.
   */
  public record Pass(int swept, int aborted, int pages, Position next, Optional<String> failure, int waiting) {
    /**
     * Checks the counts.
     *
     * @throws IllegalArgumentException when a count is negative.
     * @throws NullPointerException when a part is null.
     */
    public Pass {
      if (swept < 0 || aborted < 0 || pages < 0 || waiting < 0) {
        throw new IllegalArgumentException("counts must not be negative: swept=" + swept + " aborted=" + aborted
            + " pages=" + pages);
      }
      Objects.requireNonNull(next, "next");
      Objects.requireNonNull(failure, "failure");
    }

    /** @return rows removed by this pass, Ready and Creating together. */
    public int removed() {
      return swept + aborted;
    }
  }

  /**
   * A sweep over {@code store}.
   *
   * @param store the Location Store.
   * @param batches the placement batches over the same store (the sweep and abort batches).
   * @param timeout the longest wait of each store call, positive.
   * @throws NullPointerException when a part is null.
   */
  public DeadOwnerRows(final LocationStore store, final PlacementBatches batches, final Duration timeout) {
    this(store, batches, timeout, Duration.ZERO);
  }

  /**
   * A sweep over {@code store} that leaves a dead owner's Ready rows alone until a pass saw that owner run gone at
   * least {@code grace} before: a move whose source died after it handed the actor to a live target is then either
   * committed by the target's CAS (retried until its Restore validity ends, spec 001 section 4.5) or given up by it
   * before the row is swept, so the sweep never takes a moved state's row from under its target. The first pass
   * that sees a run gone only notes the time.
   *
   * @param store the Location Store.
   * @param batches the placement batches over the same store (the sweep and abort batches).
   * @param timeout the longest wait of each store call, positive.
   * @param grace how long an owner run must have been seen gone first, 0 or more (0: at once).
   * @throws NullPointerException when a part is null.
   */
  public DeadOwnerRows(final LocationStore store, final PlacementBatches batches, final Duration timeout,
      final Duration grace) {
    this.store = Objects.requireNonNull(store, "store");
    this.batches = Objects.requireNonNull(batches, "batches");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.graceMillis = Objects.requireNonNull(grace, "grace").toMillis();
  }

  /**
   * Whether the owner run of {@code row}, found gone by {@code lease}, was first seen gone at least the grace before
   * (by store time); notes it now when first seen.
   */
  private boolean goneLongEnough(final AuthorityRecord row, final Leases.Check lease) {
    if (graceMillis == 0) {
      return true;
    }
    if (goneSince.size() > MAX_TRACKED) {
      goneSince.clear(); // bounded memory; the runs still gone are noted again, their sweep waits one grace more
    }
    final long now = lease.now().epochMillis();
    final long since = goneSince.computeIfAbsent(row.ownerId() + "\0" + row.ownerLeaseGeneration().value(),
        k -> now);
    return now - since >= graceMillis;
  }

  /**
   * One bounded pass from {@code from}: reads pages until both kinds were read to their end, {@code maxPages} pages
   * were read, or {@code keepGoing} answers false (checked before each page and each batch).
   *
   * @param meshName only rows placed in this mesh (the row's, or its aggregate's, MeshName).
   * @param selfOwnerId the OwnerId of the calling run, whose rows are never touched.
   * @param from where to start: {@link Position#START}, or the {@link Pass#next()} of the previous pass.
   * @param maxPages 1..10,000 store scan pages at most.
   * @param keepGoing false to stop early (the node closes, or its own lease stopped admitting work).
   * @return what was done and where to go on.
   * @throws IllegalArgumentException when {@code maxPages} is outside 1..10,000.
   * @throws SpotkitException.Unavailable when the store fails or does not answer: the pass stops there; rows
   *     already removed stay removed.
   */
  public Pass sweep(final String meshName, final String selfOwnerId, final Position from, final int maxPages,
      final BooleanSupplier keepGoing) {
    if (maxPages < 1 || maxPages > 10_000) {
      throw new IllegalArgumentException("maxPages " + maxPages + " is outside 1..10000");
    }
    final Counts counts = new Counts(meshName, selfOwnerId, keepGoing);
    AuthorityKind kind = from.kind();
    Optional<ScanCursor> cursor = from.cursor();
    int pages = 0;
    while (pages < maxPages && keepGoing.getAsBoolean()) {
      final String prefix = LocationKeys.authorityPrefix(kind);
      final ScanResult result = StoreCalls.await(store.scan(new ScanRequest(prefix, cursor, PAGE_SIZE)), timeout,
          "scan of " + StoreLimits.printable(prefix));
      pages++;
      if (!(result instanceof ScanResult.Page page)) {
        cursor = Optional.empty(); // ScanExpired: this kind again from its first page
        continue;
      }
      onPage(kind, page.entries(), counts);
      cursor = page.next();
      if (cursor.isEmpty()) {
        if (kind == AuthorityKind.SPOT) {
          return counts.pass(pages, Position.START);
        }
        kind = AuthorityKind.SPOT;
      }
    }
    return counts.pass(pages, new Position(kind, cursor));
  }

  /** What one pass counted, and its lease checks (one store read per owner run). */
  private final class Counts {
    private final String meshName;
    private final String selfOwnerId;
    private final BooleanSupplier keepGoing;
    private final Map<String, Leases.Check> leases = new HashMap<>();
    private int swept;
    private int aborted;
    private int waiting;
    private String failure;

    Counts(final String meshName, final String selfOwnerId, final BooleanSupplier keepGoing) {
      this.meshName = meshName;
      this.selfOwnerId = selfOwnerId;
      this.keepGoing = keepGoing;
    }

    Leases.Check lease(final AuthorityRecord row) {
      return leases.computeIfAbsent(row.ownerId() + "\0" + row.ownerLeaseGeneration().value(),
          k -> Leases.check(store, row.ownerId(), row.ownerLeaseGeneration(), timeout));
    }

    void failed(final String why) {
      if (failure == null) {
        failure = why;
      }
    }

    Pass pass(final int pages, final Position next) {
      return new Pass(swept, aborted, pages, next, Optional.ofNullable(failure), waiting);
    }
  }

  private void onPage(final AuthorityKind kind, final List<ScanEntry> entries, final Counts counts) {
    final List<ScanEntry> kept = new ArrayList<>(entries.size());
    final List<AuthorityRecord> rows = new ArrayList<>(entries.size());
    for (ScanEntry entry : entries) {
      try {
        rows.add(AuthorityRecord.decode(entry.value()));
        kept.add(entry);
      } catch (RecordDecodeException e) {
        counts.failed("row " + StoreLimits.printable(entry.key()) + " is unreadable: " + e.getMessage());
      }
    }
    final List<AuthorityRecord> effective;
    try {
      effective = AggregateAuthority.effectiveAll(store, rows, timeout);
    } catch (RecordDecodeException e) {
      counts.failed("an aggregate record is unreadable: " + e.getMessage());
      return;
    }
    final String prefix = LocationKeys.authorityPrefix(kind);
    for (int i = 0; i < kept.size() && counts.keepGoing.getAsBoolean(); i++) {
      final AuthorityRecord row = effective.get(i);
      if (!row.allocation().meshName().equals(counts.meshName) || row.ownerId().equals(counts.selfOwnerId)
          || counts.lease(row).valid()) {
        continue; // another mesh's, this run's, or its owner is alive: never written
      }
      final ObjectKey key = new ObjectKey(kind, kept.get(i).key().substring(prefix.length()));
      try {
        if (row.allocation().state() == AuthorityRecord.State.ACTIVE) {
          final Leases.Check lease = counts.lease(row);
          if (lease.gone() && !goneLongEnough(row, lease)) {
            counts.waiting++;
          } else if (lease.gone() && batches.sweepAbandoned(key, kept.get(i).version())) {
            counts.swept++;
          }
        } else if (batches.abortAbandoned(key, kept.get(i).version())) {
          counts.aborted++;
        }
      } catch (SpotkitException.InternalFailure | RecordDecodeException e) {
        counts.failed(key.logicalKey() + ": " + e.getMessage());
      }
    }
  }
}
