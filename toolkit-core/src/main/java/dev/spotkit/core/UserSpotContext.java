package dev.spotkit.core;

import java.util.List;

/** A User Spot's context: members and close (spec 003 section 7). */
public sealed interface UserSpotContext extends SpotContext permits UserSpotContextImpl {

  /**
   * The current members. Any thread.
   *
   * @return a snapshot in join order.
   */
  List<Member> members();

  /**
   * Closes this spot from its own handler or timer (spec 003 section 3.4). Only inside a handler turn of this
   * spot.
   *
   * @return false, with no OnClosing, while any actor is a member (the framework never moves or removes a
   *     member for you) or while a cross-node join this spot admitted (OnActorJoin accepted) has not committed or
   *     failed yet (spec 000: close checks membership and relocation state; an admitted join whose move never
   *     starts stops counting when its approval expires, 30 s); true when the close is registered: after the
   *     current turn, OnClosing(ExplicitClose) runs, then the spot's timers, mailbox and store record are
   *     released.
   * @throws SpotkitException.InvalidOperation outside a handler turn of this spot.
   */
  boolean close();

  /**
   * The application-signaled relocation boundary of this Spot (spec 003 section 5.1): {@code relocationReady().defer()}
   * in a turn lets a waiting move seal the Spot when the turn ends. Any thread; {@link RelocationReady#defer()} only
   * in a turn of this Spot.
   *
   * @return the boundary handle of this Spot.
   */
  RelocationReady relocationReady();
}
