package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.Messaging;
import dev.spotkit.core.internal.runtime.NodeRuntime;

/**
 * {@link Target} over an internal address: a send to an actor or spot that is Ready on this node reuses the cell it
 * resolved last; anything else is resolved on every send.
 */
final class TargetImpl implements Target {
  private final NodeRuntime rt;
  private final Address address;
  /** Null for Instance intent (activated on first message: always the full path). */
  private final Messaging.CellCache cache;

  TargetImpl(final NodeRuntime rt, final Address address) {
    this.rt = rt;
    this.address = address;
    this.cache = address instanceof Address.Instance ? null : new Messaging.CellCache();
  }

  @Override
  public void send(final Object message) {
    if (cache == null) {
      rt.messaging().send(address, message);
    } else {
      rt.messaging().send(address, message, cache);
    }
  }

  @Override
  public <R> Call<R> request(final Object message, final Class<R> replyType) {
    return request(rt, address, message, replyType);
  }

  static <R> Call<R> request(final NodeRuntime rt, final Address address, final Object message,
      final Class<R> replyType) {
    final String what = "request " + (message == null ? "null" : message.getClass().getSimpleName()) + " to "
        + address;
    return new CallImpl<>(rt, what, (deadline, awaiting) ->
        rt.messaging().request(address, message, replyType, deadline, awaiting));
  }

  @Override
  public String toString() {
    return "Target[" + address + "]";
  }
}
