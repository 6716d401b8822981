package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.NodeRuntime;

/** {@link Target} over an internal address; resolved on every send. */
final class TargetImpl implements Target {
  private final NodeRuntime rt;
  private final Address address;

  TargetImpl(final NodeRuntime rt, final Address address) {
    this.rt = rt;
    this.address = address;
  }

  @Override
  public void send(final Object message) {
    rt.messaging().send(address, message);
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
