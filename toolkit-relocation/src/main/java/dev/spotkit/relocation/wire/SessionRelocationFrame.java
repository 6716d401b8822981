package dev.spotkit.relocation.wire;

/**
 * The three session-relocation command bodies (spec 001 sections 4.1, 7 and 9; FACTS.md "Sessions" and "Wire";
 * golden {@code session-relocation-barrier-v1.json}) as immutable records. Encode and decode with
 * {@link SessionRelocationCodec}. Every frame is {@code 5A 4D 01 <command> 00}, then big-endian, with nothing after
 * the last field:
 *
 * <pre>
 *   prefix    relocationId (u64 high, u64 low, not both zero), coordinatorFence ({@link CoordinatorFence})
 *   42 sessionRelocationSeal    prefix, senderRole u8, actorId text8, objectGeneration nonzero-u64,
 *                               currentRoute ({@link ActorRoute}), sessionOwner ({@link SessionOwner}),
 *                               sessionRid rid, bindingGeneration nonzero-u64
 *   43 sessionRelocationSealed  as 42 without senderRole                          (the Session owner's reply)
 *   44 sessionRelocationRoute   prefix, senderRole u8, actorId text8, objectGeneration nonzero-u64,
 *                               sessionOwner, sessionRid rid, bindingGeneration nonzero-u64,
 *                               action ({@link SessionRouteAction} union)          (one-way, no reply)
 * </pre>
 *
 * <p>Note: unlike commands 30 to 53 the prefix has no targetAttemptGeneration (the golden vectors go from the
 * RelocationId straight to the coordinator owner id), so it is not a {@link RelocationIdentity}; the session's
 * relocation identity is the pair (relocationId, coordinatorFence), see {@link #sameRelocation}.
 *
 * <p>Records are immutable and safe to share between threads.
 */
public sealed interface SessionRelocationFrame {

  /**
   * The RelocationId.
   *
   * @return the id of the move this frame belongs to.
   */
  RelocationId relocationId();

  /**
   * The coordinator fence.
   *
   * @return the current-owner value the coordinator of the move expects.
   */
  CoordinatorFence coordinatorFence();

  /**
   * The binding the frame is about.
   *
   * @return session owner, SessionRid, binding generation, ActorId and ObjectGeneration.
   */
  SessionBinding binding();

  /**
   * The command number.
   *
   * @return 42, 43 or 44.
   */
  int command();

  /**
   * Whether two frames belong to the same relocation: equal RelocationId and equal coordinator fence.
   *
   * @param other another session-relocation frame.
   * @return true when both carry the same relocation identity.
   */
  default boolean sameRelocation(final SessionRelocationFrame other) {
    return relocationId().equals(other.relocationId()) && coordinatorFence().equals(other.coordinatorFence());
  }

  /**
   * Command 42 sessionRelocationSeal: the source asks the Session owner to seal the binding before source
   * dispatch stops; requests and pushes from the session are then held (spec 001 section 4.1).
   *
   * @param relocationId the RelocationId.
   * @param coordinatorFence the coordinator fence.
   * @param senderRole normally {@link Role#SOURCE}.
   * @param binding the binding to seal.
   * @param currentRoute the binding's route at the seal (the source's node and owner generations).
   */
  record Seal(RelocationId relocationId, CoordinatorFence coordinatorFence, Role senderRole,
      SessionBinding binding, ActorRoute currentRoute) implements SessionRelocationFrame {

    /** The command number. */
    public static final int COMMAND = 42;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException when a part is null.
     */
    public Seal {
      Fields.present("relocationId", relocationId);
      Fields.present("coordinatorFence", coordinatorFence);
      Fields.present("senderRole", senderRole);
      Fields.present("binding", binding);
      Fields.present("currentRoute", currentRoute);
    }

    @Override
    public int command() {
      return COMMAND;
    }
  }

  /**
   * Command 43 sessionRelocationSealed: the Session owner confirms the seal. It restates the seal's fields except
   * the sender role; there are no sequence numbers and no high-water (spec 001 section 11).
   *
   * @param relocationId the RelocationId of the seal.
   * @param coordinatorFence its coordinator fence.
   * @param binding the sealed binding.
   * @param currentRoute the route the binding is sealed on.
   */
  record Sealed(RelocationId relocationId, CoordinatorFence coordinatorFence, SessionBinding binding,
      ActorRoute currentRoute) implements SessionRelocationFrame {

    /** The command number. */
    public static final int COMMAND = 43;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException when a part is null.
     */
    public Sealed {
      Fields.present("relocationId", relocationId);
      Fields.present("coordinatorFence", coordinatorFence);
      Fields.present("binding", binding);
      Fields.present("currentRoute", currentRoute);
    }

    /**
     * The reply to a seal.
     *
     * @param seal the command 42 being confirmed.
     * @return its command 43.
     * @throws IllegalArgumentException when {@code seal} is null.
     */
    public static Sealed answering(final Seal seal) {
      Fields.present("seal", seal);
      return new Sealed(seal.relocationId(), seal.coordinatorFence(), seal.binding(), seal.currentRoute());
    }

    @Override
    public int command() {
      return COMMAND;
    }
  }

  /**
   * Command 44 sessionRelocationRoute: the one-way route commit (from the target) or abort (from the source)
   * (spec 001 sections 7 and 9; REL-05).
   *
   * @param relocationId the RelocationId.
   * @param coordinatorFence the coordinator fence.
   * @param senderRole {@link Role#TARGET} for the golden commit, {@link Role#SOURCE} for the golden abort; carried,
   *     not checked against the action.
   * @param binding the binding to reroute or release.
   * @param action commit or abort.
   */
  record Route(RelocationId relocationId, CoordinatorFence coordinatorFence, Role senderRole,
      SessionBinding binding, SessionRouteAction action) implements SessionRelocationFrame {

    /** The command number. */
    public static final int COMMAND = 44;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException when a part is null.
     */
    public Route {
      Fields.present("relocationId", relocationId);
      Fields.present("coordinatorFence", coordinatorFence);
      Fields.present("senderRole", senderRole);
      Fields.present("binding", binding);
      Fields.present("action", action);
    }

    @Override
    public int command() {
      return COMMAND;
    }
  }
}
