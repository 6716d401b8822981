package dev.spotkit.core.internal.creation;

import dev.spotkit.core.ObjectRole;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.location.DeadOwnerRows;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.NodeState;
import dev.spotkit.core.location.OwnerLease;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The background dead-owner sweep (crash recovery, issue 15: "rows and capacity of dead owners are swept";
 * {@code MeshNode.Builder#deadOwnerSweep}): without it, the rows of a killed node that nobody asks for again stay
 * in the Location Store for good, since the on-access recovery only sweeps a row when a {@code getOrCreate} or a
 * message with Instance intent reaches it.
 *
 * <p>Once per sweep period (0.75..1.25 times the period, uniformly jittered so nodes started together do not read
 * the store in step), on an object server whose crash recovery is on ({@code recreateAfterOwnerLoss}), that is
 * Serving and whose own owner lease admits work:
 * <ol>
 *   <li>it reads the live nodes of its mesh ({@link NodeDirectory#readMesh}, one descriptor scan and one lease read
 *   per node); it goes on only when it is the live Serving node with the lowest RoutingId;</li>
 *   <li>it runs one bounded pass of {@link DeadOwnerRows} (at most {@value #MAX_PAGES} pages of
 *   {@value DeadOwnerRows#PAGE_SIZE} rows; the next period goes on where this one stopped): each Ready row whose
   *   owner's lease is gone for good, and was already seen gone {@link #GRACE} before (by store time; the pass that
 *   first finds it only notes it, and the next pass comes once the grace passed), is deleted with its capacity slots
 *   in one conditioned batch, by the same rule and batch as the on-access recovery, and each Creating row of a dead
 *   owner is aborted;</li>
 *   <li>it reads the mesh once more, sweeping the descriptor and capacity record of each gone node, as placement
 *   does ({@link NodeDirectory#readMesh(String, boolean)}), after the rows, so their slots were retired first.</li>
 * </ol>
 * Why one sweeper per mesh and not every node: the pass scans every authority row, which costs the store about as
 * much as the rows it holds, while the election read costs one descriptor scan and one lease read per node. With one
 * sweeper the store pays the row scan once per period instead of once per node. Correctness needs no election: every
 * write is conditioned on what was read (the row's StoreVersion, the dead lease), so two nodes that both think they
 * are the lowest (their views differ for a moment) only waste reads, and a Conflict means someone else swept or
 * re-created the row. A node that is not elected costs the store one small read per period. The period of the elected
 * node applies; set the same one on every node.
 *
 * <p>Counts removed rows in {@code spotkit.recovery.swept} when metrics are on; logs one INFO line
 * {@code event=dead_rows_swept ...} per pass that removed something (never one line per row). A store failure ends
 * that pass (WARN for the first failure after a good pass, DEBUG for the next ones) and the next period tries again.
 *
 * <p>Runs on its own virtual thread, never on a dispatcher worker; it waits on the node's end between periods, stops
 * when the node closes or is halted (checked before every page and batch), and close never waits for it. Not API.
 */
public final class DeadOwnerSweeper {
  /** Store scan pages one sweep reads at most: {@value} (at most 10,000 rows a period). */
  static final int MAX_PAGES = 50;
  /** Bound of each store call of the sweep. */
  private static final Duration STORE_TIMEOUT = Duration.ofSeconds(5);
  /**
   * How long a dead owner run must have been seen gone (by store time) before its Ready rows are swept: a move's
   * Restore validity (10 s, spec 001 section 4.5: the target retries its CAS that long) plus one store call. A
   * source that died after handing an actor to a live target so leaves the target's CAS the row: the move commits
   * (the state kept) or the target gives up, before the sweep removes the row.
   */
  public static final Duration GRACE = Duration.ofSeconds(15);

  private final NodeRuntime rt;
  private final Duration period;
  private final OwnerLease lease;
  private final DeadOwnerRows rows;
  private final NodeDirectory directory;
  /** Where the next pass starts. Written and read by the sweeper thread only. */
  private DeadOwnerRows.Position next = DeadOwnerRows.Position.START;
  /** Whether the previous pass left rows for their grace. Sweeper thread only. */
  private boolean waiting;
  /** Whether the previous sweep failed (its WARN was logged). Sweeper thread only. */
  private boolean failing;
  /** The row-level failure the previous pass reported (its WARN was logged), or null. Sweeper thread only. */
  private String lastSkipped;

  private DeadOwnerSweeper(final NodeRuntime rt, final Duration period) {
    this.rt = rt;
    this.period = period;
    this.lease = rt.store().ownerLease();
    this.rows = new DeadOwnerRows(rt.store().store(), rt.store().batches(), STORE_TIMEOUT, GRACE);
    this.directory = new NodeDirectory(rt.store().store(), STORE_TIMEOUT);
  }

  /**
   * Starts the sweeper when the node takes part in crash recovery: an object server with a Location Store and
   * {@code recreateAfterOwnerLoss} on. Otherwise does nothing (a mesh shared with runtimes that keep the contract's
   * plain Unavailable sweeps nothing).
   *
   * @param rt the started node.
   */
  public static void start(final NodeRuntime rt) {
    if (rt.config().role() != ObjectRole.SERVER || rt.config().store() == null
        || !rt.config().recreateAfterOwnerLoss() || rt.store() == null) {
      return;
    }
    final DeadOwnerSweeper sweeper = new DeadOwnerSweeper(rt, rt.config().deadOwnerSweep());
    Thread.ofVirtual().name("spotkit-dead-owner-sweep-" + rt.nodeRid()).start(sweeper::loop);
  }

  private void loop() {
    while (!rt.isClosing()) {
      // rows left for their grace are taken up once it passed, not a whole period later
      final long base = waiting ? Math.min(period.toNanos(), GRACE.plusSeconds(1).toNanos()) : period.toNanos();
      final long wait = (long) (base * ThreadLocalRandom.current().nextDouble(0.75, 1.25));
      if (dev.spotkit.core.internal.runtime.NodeWaits.endsWithin(rt, wait)) {
        return; // the node ended
      }
      try {
        sweepOnce();
        failing = false;
      } catch (RuntimeException e) { // SpotkitException.Unavailable above all; anything else must not end the loop
        if (rt.isClosing()) {
          return; // e.g. the stores were closed with the node
        }
        if (!failing) {
          NodeRuntime.LOG.warn("event=dead_rows_sweep_failed node={} error={}; trying again next period",
              rt.nodeRid(), e.getMessage());
        } else {
          NodeRuntime.LOG.debug("dead owner sweep of node {} failed again: {}", rt.nodeRid(), e.getMessage());
        }
        failing = true;
      }
    }
  }

  private boolean mayWork() {
    return !rt.isClosing() && lease.admitsNow() && rt.publishedState() == NodeState.SERVING;
  }

  /** One period's work; Unavailable (and the like) when the store fails. */
  private void sweepOnce() {
    if (!mayWork() || !elected(directory.readMesh(rt.meshName().value(), false))) {
      return;
    }
    final long started = System.nanoTime();
    final DeadOwnerRows.Pass pass = rows.sweep(rt.meshName().value(), rt.store().self().ownerId(), next, MAX_PAGES,
        this::mayWork);
    next = pass.next();
    waiting = pass.waiting() > 0;
    if (pass.removed() > 0) {
      rt.metrics().deadRowsSwept(pass.removed());
      NodeRuntime.LOG.info("event=dead_rows_swept count={} ready={} creating={} pages={} complete={} took_ms={}"
          + " node={}", pass.removed(), pass.swept(), pass.aborted(), pass.pages(),
          pass.next().equals(DeadOwnerRows.Position.START), (System.nanoTime() - started) / 1_000_000,
          rt.nodeRid());
    }
    final String skipped = pass.failure().orElse(null);
    if (skipped != null && !skipped.equals(lastSkipped)) {
      NodeRuntime.LOG.warn("event=dead_rows_sweep_skipped node={} error={}; the row stays", rt.nodeRid(), skipped);
    } else if (skipped != null) {
      NodeRuntime.LOG.debug("dead owner sweep of node {} skipped a row again: {}", rt.nodeRid(), skipped);
    }
    lastSkipped = skipped;
    if (mayWork()) {
      directory.readMesh(rt.meshName().value(), true); // gone nodes' descriptors and capacity records
    }
  }

  /** Whether this node is the live Serving node with the lowest RoutingId in {@code live}. */
  private boolean elected(final List<NodePeer> live) {
    final String self = rt.nodeRid().hex();
    // RoutingIds are 16 lowercase hex digits: their String order is their numeric order
    return live.stream().filter(p -> p.state() == NodeState.SERVING).map(NodePeer::routingIdHex)
        .min(String::compareTo).map(self::equals).orElse(false);
  }
}
