package dev.spotkit.core;

/**
 * The one sealed hierarchy of Spotkit's typed errors (DESIGN.md "Messaging"). Every failure a caller can see
 * is one of the nested types; {@link #kind()} gives the same as an enum for a {@code switch}. Messages
 * carry the offending value and the limit, and for API misuse name the fix (STYLE.md section 7 rule 8).
 *
 * <p>Where errors surface: synchronously from the call that detects them (a send to a missing target, an
 * exceeded join registration), from {@link Call#await()} for requests and manager calls, and inside
 * {@link JoinResult.Failed} for joins. Unchecked, so handlers may let them propagate: a request handler
 * that throws one fails the request with that same error; any other exception becomes
 * {@link InternalFailure}.
 *
 * <p>The permitted subtypes are the nested classes of this file (inferred by the compiler).
 */
public abstract sealed class SpotkitException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final ErrorKind kind;

  SpotkitException(final ErrorKind kind, final String message, final Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  /**
   * The error as an enum value.
   *
   * @return the kind; {@link ErrorKind#STALE_GENERATION} for {@link StaleGeneration}.
   */
  public ErrorKind kind() {
    return kind;
  }

  /**
   * The target object does not exist (or is not Ready): a missing Actor or Spot, a plain message to a missing
   * Instance Spot (SPOT-03), an unknown join target.
   */
  public static final class NotFound extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public NotFound(final String message) {
      super(ErrorKind.NOT_FOUND, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public NotFound(final String message, final Throwable cause) {
      super(ErrorKind.NOT_FOUND, message, cause);
    }
  }

  /**
   * The target exists but cannot take the operation now: it is closing, sealed for a move, or its location record
   * changed under the operation.
   */
  public static final class Unavailable extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public Unavailable(final String message) {
      super(ErrorKind.UNAVAILABLE, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public Unavailable(final String message, final Throwable cause) {
      super(ErrorKind.UNAVAILABLE, message, cause);
    }
  }

  /**
   * A limit was hit: a bounded mailbox is full (mailbox OfferResult MAILBOX_FULL), or a join or creation request is
   * over its size or count limit (MEM-11).
   */
  public static final class CapacityExceeded extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public CapacityExceeded(final String message) {
      super(ErrorKind.CAPACITY_EXCEEDED, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public CapacityExceeded(final String message, final Throwable cause) {
      super(ErrorKind.CAPACITY_EXCEEDED, message, cause);
    }
  }

  /**
   * The operation's absolute deadline passed before it completed (a request got no reply, a join was not committed in
   * time).
   */
  public static final class DeadlineExceeded extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public DeadlineExceeded(final String message) {
      super(ErrorKind.DEADLINE_EXCEEDED, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public DeadlineExceeded(final String message, final Throwable cause) {
      super(ErrorKind.DEADLINE_EXCEEDED, message, cause);
    }
  }

  /**
   * The caller misused the API or asked for something illegal in the current state (STYLE.md rule 8: the
   * message names the fix): defer() after the handler ended (MEM-13), an awaited request to the caller's own
   * actor while a join barrier is registered (MEM-15), a bad id, a closed scope. {@link StaleGeneration} is
   * the stale-ref case of it (FACTS.md: "InvalidOperation (stale)").
   */
  public static sealed class InvalidOperation extends SpotkitException permits StaleGeneration {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what was wrong and how to fix it.
     */
    public InvalidOperation(final String message) {
      super(ErrorKind.INVALID_OPERATION, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what was wrong and how to fix it.
     * @param cause the underlying failure.
     */
    public InvalidOperation(final String message, final Throwable cause) {
      super(ErrorKind.INVALID_OPERATION, message, cause);
    }

    InvalidOperation(final ErrorKind kind, final String message) {
      super(kind, message, null);
    }
  }

  /**
   * A ref's ObjectGeneration is not the live incarnation's: destroy, close or a message by ref is refused
   * rather than applied to another incarnation (FACTS.md "Destroy: ... InvalidOperation (stale) when another
   * generation exists"). A subtype of {@link InvalidOperation}.
   */
  public static final class StaleGeneration extends InvalidOperation {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message names the ref's generation and the live one.
     */
    public StaleGeneration(final String message) {
      super(ErrorKind.STALE_GENERATION, message);
    }
  }

  /** A message has no handler of its type on the target, or a reply is not of the type the caller asked for. */
  public static final class TypeMismatch extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public TypeMismatch(final String message) {
      super(ErrorKind.TYPE_MISMATCH, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public TypeMismatch(final String message, final Throwable cause) {
      super(ErrorKind.TYPE_MISMATCH, message, cause);
    }
  }

  /** An object with this id already exists where the operation needed it to be absent. */
  public static final class AlreadyExists extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public AlreadyExists(final String message) {
      super(ErrorKind.ALREADY_EXISTS, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public AlreadyExists(final String message, final Throwable cause) {
      super(ErrorKind.ALREADY_EXISTS, message, cause);
    }
  }

  /** The node started closing: new work is refused (spec 003 section 3.4, HostShutdown). */
  public static final class ShuttingDown extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public ShuttingDown(final String message) {
      super(ErrorKind.SHUTTING_DOWN, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public ShuttingDown(final String message, final Throwable cause) {
      super(ErrorKind.SHUTTING_DOWN, message, cause);
    }
  }

  /**
   * A needed part is not configured: an object role without a Location Store (MEM-01), an unknown stable type, no
   * object role.
   */
  public static final class NotConfigured extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public NotConfigured(final String message) {
      super(ErrorKind.NOT_CONFIGURED, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public NotConfigured(final String message, final Throwable cause) {
      super(ErrorKind.NOT_CONFIGURED, message, cause);
    }
  }

  /** The store-wide ObjectGeneration sequence is used up (LOC-02); the store did not change. */
  public static final class GenerationExhausted extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public GenerationExhausted(final String message) {
      super(ErrorKind.GENERATION_EXHAUSTED, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public GenerationExhausted(final String message, final Throwable cause) {
      super(ErrorKind.GENERATION_EXHAUSTED, message, cause);
    }
  }

  /**
   * The operation is refused by a fixed policy, e.g. a cross-node Join of an Actor registered with
   * DisableRelocation (spec 000 section 4, Failed kind Rejected). Not an application rejection: that is
   * {@link JoinResult.Rejected}.
   */
  public static final class Rejected extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what was refused and by which policy.
     */
    public Rejected(final String message) {
      super(ErrorKind.REJECTED, message, null);
    }
  }

  /** Data the operation depended on is permanently gone or corrupt (LOC-24). */
  public static final class DataLost extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public DataLost(final String message) {
      super(ErrorKind.DATA_LOST, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public DataLost(final String message, final Throwable cause) {
      super(ErrorKind.DATA_LOST, message, cause);
    }
  }

  /**
   * A handler, factory or callback threw, or the runtime failed in a way the caller cannot fix; the cause is
   * attached.
   */
  public static final class InternalFailure extends SpotkitException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed, with the offending value and limit.
     */
    public InternalFailure(final String message) {
      super(ErrorKind.INTERNAL_FAILURE, message, null);
    }

    /**
     * Creates the error with a cause.
     *
     * @param message what failed, with the offending value and limit.
     * @param cause the underlying failure.
     */
    public InternalFailure(final String message, final Throwable cause) {
      super(ErrorKind.INTERNAL_FAILURE, message, cause);
    }
  }
}
