package dev.spotkit.core;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What a host drain ({@link MeshNode#relocate(RelocateOptions)}) may do: where the units may go, how long it may
 * start new moves, how many rooms move at once, and whether the result waits for SafeToShutdown (FACTS.md "Host
 * relocation"; spec 000 sections 6-7). Immutable: every setter returns a new instance. Any thread.
 *
 * <pre>{@code
 * RelocateResult r = node.relocate(RelocateOptions.drainAnywhere()
 *     .filter(rid -> !rid.equals(canaryNode))      // never onto the canary
 *     .deadline(Duration.ofSeconds(20))).get(60, TimeUnit.SECONDS);
 * if (r.outcome() == RelocateResult.Outcome.RELOCATED) { ... }
 * }</pre>
 *
 * <p>A target is always a live node of this mesh, other than this one, whose published state is Serving, that
 * registered the unit's types (for a room: the Spot's type and every member's type) and, for
 * {@link #drainAnywhere()}, whose placement weight is above 0; then it must be named by {@link #drainTo} (when
 * used) and pass {@link #filter}. Among the targets that fit a unit, units are spread by smooth weighted round-robin
 * on the placement weights (spec 002 section 4), in the order the drain visits them.
 */
public final class RelocateOptions {
  /** The default {@link #deadline(Duration)}: 30 s (FACTS.md "Host relocation"). */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);
  /** The default {@link #parallelism(int)}: 8 rooms moving at once. */
  public static final int DEFAULT_PARALLELISM = 8;
  /** The largest {@link #parallelism(int)}: 256. */
  public static final int MAX_PARALLELISM = 256;

  private final Set<NodeRid> targets;
  private final Predicate<NodeRid> filter;
  private final Duration deadline;
  private final int parallelism;
  private final boolean awaitSafeToShutdown;

  private RelocateOptions(final Set<NodeRid> targets, final Predicate<NodeRid> filter, final Duration deadline,
      final int parallelism, final boolean awaitSafeToShutdown) {
    this.targets = targets;
    this.filter = filter;
    this.deadline = deadline;
    this.parallelism = parallelism;
    this.awaitSafeToShutdown = awaitSafeToShutdown;
  }

  /**
   * Drains onto any Serving node of the mesh with a placement weight above 0 (and passing {@link #filter}).
   *
   * @return the options: deadline 30 s, parallelism 8, no filter, no wait for SafeToShutdown.
   */
  public static RelocateOptions drainAnywhere() {
    return new RelocateOptions(Set.of(), rid -> true, DEFAULT_DEADLINE, DEFAULT_PARALLELISM, false);
  }

  /**
   * Drains onto these nodes only (any placement weight, also 0: naming a node is the operator's choice); each must
   * still be live and Serving when the drain reads the mesh.
   *
   * @param targets one or more NodeRids, none null; order does not matter, duplicates count once.
   * @return the options: deadline 30 s, parallelism 8, no filter, no wait for SafeToShutdown.
   * @throws SpotkitException.InvalidOperation when {@code targets} is null, empty or holds null.
   */
  public static RelocateOptions drainTo(final NodeRid... targets) {
    if (targets == null || targets.length == 0 || Arrays.asList(targets).contains(null)) {
      throw new SpotkitException.InvalidOperation("drainTo needs one or more NodeRids, none null, not "
          + (targets == null ? "null" : Arrays.toString(targets)) + "; use drainAnywhere() for any Serving node");
    }
    return new RelocateOptions(Set.copyOf(new LinkedHashSet<>(Arrays.asList(targets))), rid -> true,
        DEFAULT_DEADLINE, DEFAULT_PARALLELISM, false);
  }

  /**
   * A further target filter, called once per live Serving candidate on the drain's own thread (never inside a
   * handler turn); it must not block. A candidate it refuses is never a target; when it refuses every candidate,
   * every unit is kept with {@link RelocateResult.Reason#NO_TARGET}.
   *
   * @param targetFilter true for a NodeRid that may take units.
   * @return new options with this filter (replacing an earlier one).
   * @throws SpotkitException.InvalidOperation when null.
   */
  public RelocateOptions filter(final Predicate<NodeRid> targetFilter) {
    if (targetFilter == null) {
      throw new SpotkitException.InvalidOperation("filter(null): pass a Predicate<NodeRid>, e.g. rid -> true");
    }
    return new RelocateOptions(targets, targetFilter, deadline, parallelism, awaitSafeToShutdown);
  }

  /**
   * How long after the call the drain may start moves: a unit not started by then is kept with
   * {@link RelocateResult.Reason#DEADLINE_EXCEEDED} and keeps serving here. A move already started runs to its own
   * end (it is never cut off after its seal: spec 000 section 8), so the call may complete later than this.
   *
   * @param timeout positive, at most {@link Deadline#MAX_TIMEOUT}; default {@link #DEFAULT_DEADLINE} (30 s).
   * @return new options with this deadline.
   * @throws SpotkitException.InvalidOperation when null, not positive or too long.
   */
  public RelocateOptions deadline(final Duration timeout) {
    Deadline.after(timeout); // validates
    return new RelocateOptions(targets, filter, timeout, parallelism, awaitSafeToShutdown);
  }

  /**
   * How many SpotWide rooms move at once (each is one aggregate: spec 000 section 7). Entry Spot actors all start
   * together (each is a small unit with its own gate).
   *
   * @param rooms 1..{@value #MAX_PARALLELISM}; default {@value #DEFAULT_PARALLELISM}.
   * @return new options with this parallelism.
   * @throws SpotkitException.InvalidOperation when outside that range.
   */
  public RelocateOptions parallelism(final int rooms) {
    if (rooms < 1 || rooms > MAX_PARALLELISM) {
      throw new SpotkitException.InvalidOperation("parallelism " + rooms + " must be 1.." + MAX_PARALLELISM);
    }
    return new RelocateOptions(targets, filter, deadline, rooms, awaitSafeToShutdown);
  }

  /**
   * Whether the result waits for SafeToShutdown: when every unit moved, until the Message Follow window (30 s) of
   * the last committed unit ended, so closing this node right after loses no message a peer still sends to its old
   * address (FACTS.md "Host relocation"). Without it the result completes at once and
   * {@link RelocateResult#followEndsIn()} says how long the window still runs.
   *
   * @param await true to wait; default false.
   * @return new options with this choice.
   */
  public RelocateOptions awaitSafeToShutdown(final boolean await) {
    return new RelocateOptions(targets, filter, deadline, parallelism, await);
  }

  /** @return the nodes named by {@link #drainTo}, or an empty set for {@link #drainAnywhere()}. */
  public Set<NodeRid> targets() {
    return targets;
  }

  /** @return the target filter (always true unless {@link #filter} was set). */
  public Predicate<NodeRid> targetFilter() {
    return filter;
  }

  /** @return how long the drain may start moves (default 30 s). */
  public Duration deadline() {
    return deadline;
  }

  /** @return how many rooms move at once (default 8). */
  public int parallelism() {
    return parallelism;
  }

  /** @return whether the result waits for SafeToShutdown (default false). */
  public boolean awaitsSafeToShutdown() {
    return awaitSafeToShutdown;
  }

  /**
   * Whether {@code candidate} passes the names of {@link #drainTo} and the {@link #filter}.
   *
   * @param candidate a NodeRid.
   * @return true when it may take units (liveness, state and types are checked by the drain).
   */
  public boolean admits(final NodeRid candidate) {
    Objects.requireNonNull(candidate, "candidate");
    return (targets.isEmpty() || targets.contains(candidate)) && filter.test(candidate);
  }

  @Override
  public String toString() {
    return "RelocateOptions[targets=" + (targets.isEmpty() ? "any" : targets) + ", deadline=" + deadline
        + ", parallelism=" + parallelism + ", awaitSafeToShutdown=" + awaitSafeToShutdown + "]";
  }
}
