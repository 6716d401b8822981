package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.Address;
import dev.spotkit.core.internal.runtime.NodeRuntime;

/** A listed member: its ref and sends by that ref (a destroyed member then fails with NotFound). */
final class MemberImpl implements Member {
  private final NodeRuntime rt;
  private final ActorRef ref;
  private final Address address;

  MemberImpl(final NodeRuntime rt, final ActorRef ref) {
    this.rt = rt;
    this.ref = ref;
    this.address = new Address.ActorByRef(ref);
  }

  @Override
  public ActorRef ref() {
    return ref;
  }

  @Override
  public void send(final Object message) {
    rt.messaging().send(address, message);
  }

  @Override
  public <R> Call<R> request(final Object message, final Class<R> replyType) {
    return TargetImpl.request(rt, address, message, replyType);
  }

  @Override
  public String toString() {
    return "Member[" + ref.id() + "]";
  }
}
