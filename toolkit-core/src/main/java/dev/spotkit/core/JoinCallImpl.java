package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Turn;
import java.time.Duration;

/** A join being registered; {@link #defer()} hands it to the runtime once. */
final class JoinCallImpl implements JoinCall {
  /** Default join timeout (spec 000 section 4, MEM-12). */
  static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  private final ActorCell cell;
  /** The handler turn that made this call; defer() is valid only while it is open, on its thread. */
  private final Turn createdIn = Turn.current();
  private final String spotId;
  private final Object request;
  private Duration timeout = DEFAULT_TIMEOUT;
  private boolean deferred;

  JoinCallImpl(final ActorCell cell, final String spotId, final Object request) {
    this.cell = cell;
    this.spotId = spotId;
    this.request = request;
  }

  @Override
  public JoinCall timeout(final Duration newTimeout) {
    Deadline.after(newTimeout); // validates
    if (deferred) {
      throw new SpotkitException.InvalidOperation("timeout(...) must be set before defer(); the deadline is fixed"
          + " at defer()");
    }
    this.timeout = newTimeout;
    return this;
  }

  @Override
  public OperationId defer() {
    if (deferred) {
      throw new SpotkitException.InvalidOperation("defer() was already called on this join; call joinSpot(...)"
          + " again for another join");
    }
    final OperationId id = cell.runtime().joins().register(cell, createdIn, spotId, request, timeout);
    deferred = true;
    return id;
  }
}
