package dev.spotkit.core.wire;

/**
 * The request-specific tail of a command 20 reply ({@code request-specific-tail}). Its layout depends on the
 * kind of the request being answered and on the terminal result: only an {@link TerminalResult#OK} reply to
 * actorJoin, userSpotCreate, userSpotClose or actorCreate has a non-empty tail; every other reply has
 * {@link Empty}. The tail is written inline after {@code failureCode}, without a length of its own.
 */
public sealed interface ReplyTail {

  /**
   * The request kind this tail answers.
   *
   * @return the kind, or {@link OperationKind#NONE} for {@link Empty}.
   */
  OperationKind kind();

  /** No tail: a failed reply, or a kind without one. */
  record Empty() implements ReplyTail {
    /** The instance. */
    public static final Empty INSTANCE = new Empty();

    @Override
    public OperationKind kind() {
      return OperationKind.NONE;
    }
  }

  /**
   * Tail of an OK reply to command 47: u8 createResult, then spot-ref.
   *
   * @param result existing, created or rejected.
   * @param spot the Spot's id and generation.
   */
  record UserSpotCreated(CreateResult result, WireSpotRef spot) implements ReplyTail {
    /**
     * Validates the values.
     *
     * @throws dev.spotkit.core.SpotkitException.InvalidOperation when a value is null.
     */
    public UserSpotCreated {
      Checks.RULES.present("result", result);
      Checks.RULES.present("spot", spot);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.USER_SPOT_CREATE;
    }
  }

  /**
   * Tail of an OK reply to command 48: bool8 closed (false when a current Actor membership remains).
   *
   * @param closed whether the Spot was closed.
   */
  record UserSpotClosed(boolean closed) implements ReplyTail {
    @Override
    public OperationKind kind() {
      return OperationKind.USER_SPOT_CLOSE;
    }
  }

  /**
   * Tail of an OK reply to command 49 ({@code actor-create-terminal}): u8 createResult, u16 case length, then
   * actor-ref for existing and created, nothing for rejected.
   *
   * @param result existing, created or rejected.
   * @param actor the Actor for existing and created; null for rejected.
   */
  record ActorCreated(CreateResult result, WireActorRef actor) implements ReplyTail {
    /**
     * Validates the values.
     *
     * @throws dev.spotkit.core.SpotkitException.InvalidOperation when the actor is missing for existing or
     *     created, or present for rejected.
     */
    public ActorCreated {
      Checks.RULES.present("result", result);
      if ((result == CreateResult.REJECTED) != (actor == null)) {
        throw new dev.spotkit.core.SpotkitException.InvalidOperation("actor must be " + (actor == null
            ? "given" : "null") + " when result is " + result);
      }
    }

    @Override
    public OperationKind kind() {
      return OperationKind.ACTOR_CREATE;
    }
  }

  /**
   * Tail of an OK reply to command 28 whose join was accepted ({@code actor-join-reply-tail}, joinResult 0):
   * u32 joinResult, u16 case length, spot-ref, membershipEpoch u64, receiveChunkLimitBytes u32.
   *
   * @param spot the Spot joined.
   * @param membershipEpoch non-zero.
   * @param receiveChunkLimitBytes 0 (not advertised) .. 67108864 (the relocation chunk-data ceiling).
   */
  record ActorJoinAccepted(WireSpotRef spot, long membershipEpoch, long receiveChunkLimitBytes)
      implements ReplyTail {
    /** Upper bound of {@link #receiveChunkLimitBytes()}: 64 MiB. */
    public static final long MAX_RECEIVE_CHUNK_LIMIT_BYTES = 67_108_864L;

    /**
     * Validates the values.
     *
     * @throws dev.spotkit.core.SpotkitException.InvalidOperation naming the bad field.
     */
    public ActorJoinAccepted {
      Checks.RULES.present("spot", spot);
      Checks.RULES.positive("membershipEpoch", membershipEpoch);
      Checks.RULES.u32("receiveChunkLimitBytes", receiveChunkLimitBytes, 0, MAX_RECEIVE_CHUNK_LIMIT_BYTES);
    }

    @Override
    public OperationKind kind() {
      return OperationKind.ACTOR_JOIN;
    }
  }

  /**
   * Tail of an OK reply to command 28 whose join was rejected (joinResult 1): u32 joinResult, u16 case
   * length, then optional-spot-ref (bool8 hasSpot, u16 length, spot-ref when present).
   *
   * @param spot the Spot that rejected, or null.
   */
  record ActorJoinRejected(WireSpotRef spot) implements ReplyTail {
    @Override
    public OperationKind kind() {
      return OperationKind.ACTOR_JOIN;
    }
  }
}
