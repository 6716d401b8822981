package dev.spotkit.core;

import dev.spotkit.store.LocationStore;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An operator's view of a mesh read straight from its Location Store, for tools that are not MeshNodes
 * ({@code spotkit-admin}, issue 15): the MeshNode descriptors with their state and load (spec 002 sections 3.4 and
 * 4), the objects' locations (spec 002 section 7.4, through {@link #locations()}), and operator drain requests.
 *
 * <pre>{@code
 * try (LocationStore store = RedisLocationStore.connect("redis://127.0.0.1:6379", "chat")) {
 *   MeshAdmin admin = MeshAdmin.over(store, Duration.ofSeconds(5));
 *   List<MeshAdmin.NodeStatus> nodes = admin.nodes(null);     // state, lease, load, endpoint
 *   MeshAdmin.NodeStatus node = nodes.get(0);
 *   MeshAdmin.DrainStatus asked = admin.requestDrain(node.meshName(), node.node(), Set.of(),
 *       Duration.ofSeconds(30), Duration.ofSeconds(60), "ops@host");   // drain deadline, pick-up time
 *   MeshAdmin.DrainStatus done = admin.awaitDrain(asked, Duration.ofSeconds(60));
 *   done.outcome().ifPresent(o -> System.out.println(o.actorsMoved() + " actors moved, " + o.keptCount() + " kept"));
 * }
 * }</pre>
 *
 * <p><b>Drain from outside the mesh.</b> An admin is no mesh member and holds no cluster secret; it reaches a node
 * through the store both already share. {@link #requestDrain} writes a request record at the Spotkit-defined key
 * {@code admin-drain\0{MeshName}\0{hex(NodeRid)}} (state {@code requested}, expiring after the admin's wait). A
 * node built with {@link MeshOptions#acceptAdminDrains()} reads that key once per poll interval, takes the request
 * with one conditional write ({@code accepted}, so it runs once), runs its own
 * {@link MeshNode#relocate(RelocateOptions)} and writes what moved and what stayed ({@code done}) or why it could not
 * ({@code failed}), kept 10 min. {@link #awaitDrain} reads the record until then, bounded; when it gives up before
 * the node took the request it deletes the request (conditioned on its version), so a late node never starts it. A
 * node without the option never answers: the wait ends {@link DrainState#WITHDRAWN}.
 *
 * <p>Every answer is for operational status only (never a message target list or a placement condition) and may be
 * out of date when returned. Blocking: every store call waits at most the call timeout; call from any thread that
 * may block, never from a Netty event loop. Errors: {@link SpotkitException.Unavailable} when the store fails or
 * does not answer in time (its cause is the store's {@code StoreException}), {@link SpotkitException.DataLost} when
 * a record cannot be decoded. The admin does not close the store. Thread-safety: any thread. Not implemented by
 * applications (sealed).
 */
public sealed interface MeshAdmin permits MeshAdminImpl {

  /**
   * An admin over {@code store}.
   *
   * @param store the mesh's Location Store (the one every node of the mesh was built with).
   * @param callTimeout the longest wait of each store call, 1 ms..{@link Deadline#MAX_TIMEOUT}.
   * @return the admin.
   * @throws SpotkitException.InvalidOperation when the store is null or the timeout out of range.
   */
  static MeshAdmin over(final LocationStore store, final Duration callTimeout) {
    if (store == null) {
      throw new SpotkitException.InvalidOperation("MeshAdmin.over needs a Location Store, e.g."
          + " RedisLocationStore.connect(uri, prefix)");
    }
    Deadline.after(callTimeout);
    return new MeshAdminImpl(store, callTimeout);
  }

  /**
   * Every MeshNode descriptor in the store (spec 002 section 4), in MeshName then NodeRid order: live ones (owner
   * lease valid) and ones whose lease lapsed and whose descriptor is not swept yet ({@link NodeStatus#live()} false).
   *
   * @param meshOrNull only this mesh, or null for every mesh in the store.
   * @return the nodes, immutable.
   * @throws SpotkitException.Unavailable when the store fails or does not answer in time.
   */
  List<NodeStatus> nodes(MeshName meshOrNull);

  /**
   * The operator location query (spec 002 section 7.4) over this store: {@link LocationQueries#locate} and paged
   * {@link LocationQueries#list}, as {@link MeshNode#locations()} gives it on a node. A member of a moved room is
   * reported on the room's owner.
   *
   * @return the query; the same instance on every call.
   */
  LocationQueries locations();

  /**
   * The drain requests in the store, pending and recently finished (a finished one stays 10 min), in MeshName then
   * NodeRid order.
   *
   * @param meshOrNull only this mesh, or null for every mesh.
   * @return the requests, immutable.
   * @throws SpotkitException.Unavailable when the store fails or does not answer in time.
   */
  List<DrainStatus> drainRequests(MeshName meshOrNull);

  /**
   * Asks node {@code node} to drain itself (see the class comment): checks that the node and every named target are
   * live and Serving in {@code mesh}, then writes the request.
   *
   * @param mesh the node's MeshName.
   * @param node the node to drain.
   * @param targets the nodes it may move to ({@link RelocateOptions#drainTo}), or empty for any Serving node.
   * @param deadline how long the drain may start moves ({@link RelocateOptions#deadline}), 1 ms..1 h.
   * @param pickUpWithin how long the request waits for the node to take it before it expires, 1 s..1 h.
   * @param requestedBy who asks, for operators and the node's log, 1..200 characters.
   * @return the request as written, state {@link DrainState#REQUESTED}.
   * @throws SpotkitException.NotFound when no live node {@code node} is in {@code mesh}.
   * @throws SpotkitException.InvalidOperation when the node is not Serving, a target is not a live Serving node of
   *     the mesh or is the node itself, an argument is out of range, or another request to the node is pending.
   * @throws SpotkitException.Unavailable when the store fails or does not answer in time.
   */
  DrainStatus requestDrain(MeshName mesh, NodeRid node, Set<NodeRid> targets, Duration deadline,
      Duration pickUpWithin, String requestedBy);

  /**
   * The request at node {@code node}'s drain key.
   *
   * @param mesh the node's MeshName.
   * @param node the node.
   * @return the request, or empty when there is none (never asked, withdrawn, or expired).
   * @throws SpotkitException.Unavailable when the store fails or does not answer in time.
   */
  Optional<DrainStatus> drainStatus(MeshName mesh, NodeRid node);

  /**
   * Waits for the node's answer to {@code request}: reads the request's key every 100 ms until the state is
   * {@link DrainState#DONE} or {@link DrainState#FAILED}, at most {@code timeout}. At the timeout a request the node
   * has not taken is deleted (conditioned on its version) and returned as {@link DrainState#WITHDRAWN}; one the
   * node took is returned {@link DrainState#ACCEPTED} (the drain goes on; read it later with {@link #drainStatus}).
   * A key that holds another request, or none, ends the wait as WITHDRAWN.
   *
   * @param request what {@link #requestDrain} returned.
   * @param timeout the longest wait, 1 ms..{@link Deadline#MAX_TIMEOUT}.
   * @return the last state seen.
   * @throws SpotkitException.Unavailable when the store fails or does not answer in time.
   * @throws SpotkitException.InvalidOperation when an argument is null or the timeout out of range.
   */
  DrainStatus awaitDrain(DrainStatus request, Duration timeout);

  /** A node's published state (spec 002 section 3.4, descriptor {@code state}). */
  enum NodeState {
    /** Starting up. */
    PREPARING,
    /** Accepting placements and traffic. */
    SERVING,
    /** A host drain runs: it places nothing new and moves its objects away. */
    RELOCATING,
    /** A host drain moved everything; it places nothing new until it restarts. */
    RELOCATED,
    /** Finishing accepted work. */
    DRAINING,
    /** Stopped. */
    STOPPED,
    /** Failed. */
    ERROR
  }

  /**
   * Usage of one capacity class, from the node's capacity record (spec 002 section 6).
   *
   * @param active slots of Ready objects.
   * @param reserved slots secured by creations or moves not yet committed.
   * @param limit 0 for no limit, else the node's advertised limit.
   */
  record Usage(int active, int reserved, int limit) {
  }

  /**
   * One MeshNode as its descriptor and capacity record show it.
   *
   * @param meshName the MeshName.
   * @param node the NodeRid.
   * @param state the published state.
   * @param live whether its owner lease is valid now; false: the node stopped or lost the store and its descriptor
   *     is not swept yet.
   * @param role its object role.
   * @param endpoint the mesh endpoint it advertises ({@code host:port}).
   * @param placementWeight 0..10000.
   * @param actors Actor population (an Entry Spot's actors included).
   * @param spots User and Instance Spot population.
   * @param entrySpotId its Entry Spot id, or empty unless it is an object server.
   * @param updatedAtEpochMs store time of the descriptor's last publish, epoch ms.
   */
  record NodeStatus(MeshName meshName, NodeRid node, NodeState state, boolean live, ObjectRole role, String endpoint,
      int placementWeight, Usage actors, Usage spots, Optional<String> entrySpotId, long updatedAtEpochMs) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public NodeStatus {
      Objects.requireNonNull(meshName, "meshName");
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(role, "role");
      Objects.requireNonNull(endpoint, "endpoint");
      Objects.requireNonNull(actors, "actors");
      Objects.requireNonNull(spots, "spots");
      Objects.requireNonNull(entrySpotId, "entrySpotId");
    }
  }

  /** Where a drain request is. */
  enum DrainState {
    /** Written; the node has not taken it yet. */
    REQUESTED,
    /** The node took it and is draining. */
    ACCEPTED,
    /** The drain ended; {@link DrainStatus#outcome()} says what moved and what stayed. */
    DONE,
    /** The drain could not start or did not end; {@link DrainStatus#error()} says why. */
    FAILED,
    /** Only from {@link #awaitDrain}: no node took the request in time and it was deleted; nothing ran. */
    WITHDRAWN;

    /**
     * Whether the node answered.
     *
     * @return true for DONE and FAILED.
     */
    public boolean answered() {
      return this == DONE || this == FAILED;
    }
  }

  /**
   * One drain request and, once answered, its result.
   *
   * @param meshName the node's MeshName.
   * @param node the node asked to drain.
   * @param requestId 32 lowercase hex digits, random per request.
   * @param state where it is.
   * @param requestedBy who asked.
   * @param requestedAtEpochMs the asker's clock, epoch ms.
   * @param deadline the drain's deadline.
   * @param targets the allowed targets; empty for any Serving node.
   * @param outcome what the drain did, once DONE.
   * @param error why it failed, once FAILED.
   */
  record DrainStatus(MeshName meshName, NodeRid node, String requestId, DrainState state, String requestedBy,
      long requestedAtEpochMs, Duration deadline, List<NodeRid> targets, Optional<DrainOutcome> outcome,
      Optional<String> error) {
    /**
     * Copies the list and checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public DrainStatus {
      Objects.requireNonNull(meshName, "meshName");
      Objects.requireNonNull(node, "node");
      Objects.requireNonNull(requestId, "requestId");
      Objects.requireNonNull(state, "state");
      Objects.requireNonNull(requestedBy, "requestedBy");
      Objects.requireNonNull(deadline, "deadline");
      targets = List.copyOf(targets);
      Objects.requireNonNull(outcome, "outcome");
      Objects.requireNonNull(error, "error");
    }

    /**
     * The same request in another state.
     *
     * @param next the state.
     * @return the copy.
     */
    public DrainStatus withState(final DrainState next) {
      return new DrainStatus(meshName, node, requestId, next, requestedBy, requestedAtEpochMs, deadline, targets,
          outcome, error);
    }
  }

  /**
   * What a drain did, as the node wrote it (from its {@link RelocateResult}). The lists hold at most 500 entries
   * each; the counts are exact.
   *
   * @param outcome RELOCATED (everything moved) or BLOCKED (something stayed).
   * @param actorsMoved Entry Spot actors moved.
   * @param roomsMoved SpotWide rooms moved.
   * @param membersMoved members moved with those rooms.
   * @param keptCount units kept on the node.
   * @param actors ids of the moved actors.
   * @param rooms the moved rooms.
   * @param kept the kept units.
   */
  record DrainOutcome(RelocateResult.Outcome outcome, int actorsMoved, int roomsMoved, int membersMoved,
      int keptCount, List<String> actors, List<MovedRoom> rooms, List<KeptUnit> kept) {
    /**
     * Copies the lists.
     *
     * @throws NullPointerException when a part is null.
     */
    public DrainOutcome {
      Objects.requireNonNull(outcome, "outcome");
      actors = List.copyOf(actors);
      rooms = List.copyOf(rooms);
      kept = List.copyOf(kept);
    }
  }

  /**
   * One room a drain moved.
   *
   * @param spotId the SpotId.
   * @param members members moved with it.
   */
  record MovedRoom(String spotId, int members) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when the id is null.
     */
    public MovedRoom {
      Objects.requireNonNull(spotId, "spotId");
    }
  }

  /**
   * One unit a drain kept on the node.
   *
   * @param kind what it is.
   * @param id the ActorId or SpotId.
   * @param reason why it stayed.
   * @param servingHere whether it still serves there.
   */
  record KeptUnit(RelocateResult.UnitKind kind, String id, RelocateResult.Reason reason, boolean servingHere) {
    /**
     * Checks for null.
     *
     * @throws NullPointerException when a part is null.
     */
    public KeptUnit {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(reason, "reason");
    }
  }
}
