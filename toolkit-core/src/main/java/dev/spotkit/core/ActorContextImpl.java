package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.ActorCell;
import dev.spotkit.core.internal.runtime.Ids;
import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.Turn;
import dev.spotkit.core.session.Session;
import java.util.Optional;

/** The {@link ActorContext} of one actor cell. */
final class ActorContextImpl implements ActorContext {
  private final ActorCell cell;
  private final NodeRuntime rt;
  private final Timers timers;

  ActorContextImpl(final ActorCell cell) {
    this.cell = cell;
    this.rt = cell.runtime();
    this.timers = new TimersImpl(cell.timers());
  }

  @Override
  public Optional<Deadline> deadline() {
    return Optional.ofNullable(Turn.deadlineFor(cell));
  }

  @Override
  public ActorRef self() {
    return cell.ref();
  }

  @Override
  public SpotRef membership() {
    return cell.membershipRef();
  }

  @Override
  public Target toActor(final ActorRef actor) {
    return Targets.actor(rt, actor);
  }

  @Override
  public Target toActor(final String actorId) {
    return Targets.actor(rt, actorId);
  }

  @Override
  public Target toSpot(final SpotRef spot) {
    return Targets.spot(rt, spot);
  }

  @Override
  public Target toSpot(final String spotId) {
    return Targets.spot(rt, spotId);
  }

  @Override
  public Target toInstanceSpot(final String spotId, final String stableType) {
    return Targets.instance(rt, spotId, stableType);
  }

  @Override
  public JoinCall joinSpot(final String spotId) {
    return joinSpot(spotId, EmptyRequest.INSTANCE);
  }

  @Override
  public JoinCall joinSpot(final String spotId, final Object request) {
    return new JoinCallImpl(cell, Ids.requireValid("SpotId", spotId), request);
  }

  @Override
  public JoinCall joinEntrySpot() {
    return joinEntrySpot(EmptyRequest.INSTANCE);
  }

  @Override
  public JoinCall joinEntrySpot(final Object request) {
    return new JoinCallImpl(cell, null, request);
  }

  @Override
  public Optional<Session> session() {
    return cell.session();
  }

  @Override
  public Timers timers() {
    return timers;
  }

  @Override
  public SpotManager spots() {
    return new SpotManagerImpl(rt);
  }

  @Override
  public ActorManager actors() {
    return new ActorManagerImpl(rt);
  }

  @Override
  public String toString() {
    return "ActorContext[" + cell.ref() + "]";
  }
}
