package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeRuntime;
import dev.spotkit.core.internal.runtime.Turn;
import dev.spotkit.core.internal.runtime.SpotCell;
import java.util.List;

/** What the three spot contexts share. */
abstract class AbstractSpotContext {
  final SpotCell cell;
  final NodeRuntime rt;
  private final Timers timers;

  AbstractSpotContext(final SpotCell cell) {
    this.cell = cell;
    this.rt = cell.runtime();
    this.timers = new TimersImpl(cell.timers());
  }

  public java.util.Optional<Deadline> deadline() {
    return java.util.Optional.ofNullable(Turn.deadlineFor(cell));
  }

  public SpotRef self() {
    return cell.ref();
  }

  public Target toActor(final ActorRef actor) {
    return Targets.actor(rt, actor);
  }

  public Target toActor(final String actorId) {
    return Targets.actor(rt, actorId);
  }

  public Target toSpot(final SpotRef spot) {
    return Targets.spot(rt, spot);
  }

  public Target toSpot(final String spotId) {
    return Targets.spot(rt, spotId);
  }

  public Target toInstanceSpot(final String spotId, final String stableType) {
    return Targets.instance(rt, spotId, stableType);
  }

  public Timers timers() {
    return timers;
  }

  public SpotManager spots() {
    return new SpotManagerImpl(rt);
  }

  public ActorManager actors() {
    return new ActorManagerImpl(rt);
  }

  List<Member> listMembers() {
    return cell.members().stream().<Member>map(m -> new MemberImpl(rt, m.ref())).toList();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + cell.ref() + "]";
  }
}
