package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Options of one Instance Spot registration: exactly one relocation policy (spec 000 section 6) and the optional
 * idle cleanup ({@link #idleTimeout}, spec 003 section 6.2). Not thread-safe; only inside the callback.
 *
 * @param <S> the spot type.
 */
public final class InstanceSpotOptions<S extends InstanceSpot> {
  final List<NodeConfig.Policy> policies = new ArrayList<>();
  SpotRelocationAdapter<?> adapter;
  java.time.Duration idleTimeout = java.time.Duration.ZERO;

  InstanceSpotOptions() {
  }

  /**
   * InstanceSpotIdleTimeout (spec 003 section 6.2): an instance of this type is cleaned up once this much time has
   * passed since its last application work finished (a message, request or timer turn ended, or an outbound call it
   * started completed) while nothing is in progress: its queue is empty, it has no timer registered, no call it
   * started is still waiting for its result, and it is not part of a move ({@code relocateSpot}, a host drain).
   * Cleanup runs {@code onClosing} with {@link ClosingReason#IDLE_EVICTED} (state to keep must be saved there: none
   * is preserved), then removes the local instance and its Location Store owner record. Afterwards a call with
   * Instance intent ({@code toInstanceSpot(id, type)}) activates a new incarnation with a higher ObjectGeneration,
   * and a regular message (by id or ref) ends NotFound. A message with Instance intent that arrives while the cleanup
   * runs is kept and, once the record is gone, activates that new incarnation (never dropped); a regular message
   * arriving then ends NotFound as after the cleanup. Eligibility is checked on the node's timer thread at most once
   * per timeout per live instance (no thread per spot), so an eviction happens between {@code timeout} and about
   * twice {@code timeout} after the last work, later while something is in progress.
   *
   * @param timeout {@link java.time.Duration#ZERO} (the default) for no cleanup, else 1 ms..365 days
   *     ({@link Deadline#MAX_TIMEOUT}).
   * @return these options.
   * @throws SpotkitException.InvalidOperation when {@code timeout} is null, negative, below 1 ms (and not zero) or
   *     above 365 days.
   */
  public InstanceSpotOptions<S> idleTimeout(final java.time.Duration timeout) {
    if (timeout == null || timeout.isNegative() || !timeout.isZero() && timeout.compareTo(
        java.time.Duration.ofMillis(1)) < 0 || timeout.compareTo(Deadline.MAX_TIMEOUT) > 0) {
      throw new SpotkitException.InvalidOperation("instance spot idle timeout " + timeout + " is outside 1 ms.."
          + Deadline.MAX_TIMEOUT + "; pass e.g. Duration.ofMinutes(5), or Duration.ZERO for no idle cleanup"
          + " (spec 003 section 6.2)");
    }
    this.idleTimeout = timeout;
    return this;
  }

  /**
   * DisableRelocation.
   *
   * @return these options.
   */
  public InstanceSpotOptions<S> disableRelocation() {
    policies.add(NodeConfig.Policy.DISABLE);
    return this;
  }

  /**
   * RecreateOnRelocation.
   *
   * @return these options.
   */
  public InstanceSpotOptions<S> recreateOnRelocation() {
    policies.add(NodeConfig.Policy.RECREATE);
    return this;
  }

  /**
   * PreserveStateWith.
   *
   * @param stateAdapter not null.
   * @return these options.
   */
  public InstanceSpotOptions<S> preserveStateWith(final SpotRelocationAdapter<? super S> stateAdapter) {
    if (stateAdapter == null) {
      throw new SpotkitException.InvalidOperation("preserveStateWith needs a SpotRelocationAdapter, not null");
    }
    policies.add(NodeConfig.Policy.PRESERVE);
    this.adapter = stateAdapter;
    return this;
  }

  /**
   * PreserveStateWith through JSON, with no hand-written codec (issue 15): on a move {@code capture} turns the
   * spot into a state value (a record of plain values: Strings, numbers, booleans, enums, records, {@code java.util}
   * collections and maps, {@code Optional}, {@code java.time} values), which travels as UTF-8 JSON (Jackson) and is
   * decoded on the target as {@code stateType} and passed to {@code restore} with the instance the factory built
   * there. Unknown JSON properties are ignored on restore (a newer node may send a field an older one does not
   * know). Same policy as {@link #preserveStateWith}: exactly one policy per registration (spec 000 section 6).
   *
   * @param stateType the state's class, e.g. {@code PlayerState.class}.
   * @param capture called on the source at the move's turn boundary; must not return null.
   * @param restore called on the target before the instance takes any message.
   * @param <T> the state type.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when an argument is null. At a move, a null or unwritable state fails
   *     it on the source with InvalidOperation, a state that does not decode fails it on the target (the caller
   *     gets InternalFailure, RESTORE_FAILED), both before relay-ready: the spot keeps serving where it was,
   *     nothing lost.
   */
  public <T> InstanceSpotOptions<S> preserveState(final Class<T> stateType,
      final Function<? super S, ? extends T> capture, final BiConsumer<? super S, ? super T> restore) {
    return preserveState(StateCodec.json(stateType), capture, restore);
  }

  /**
   * PreserveStateWith through a codec the user gives (issue 15): as {@link #preserveState(Class, Function,
   * BiConsumer)}, with {@code codec} encoding the captured value on the source and decoding it on the target instead
   * of JSON.
   *
   * @param codec how the state travels, e.g. a Protocol Buffers codec; thread-safe.
   * @param capture called on the source at the move's turn boundary; must not return null.
   * @param restore called on the target before the instance takes any message.
   * @param <T> the state type.
   * @return these options.
   * @throws SpotkitException.InvalidOperation when an argument is null. At a move, a null state or a codec that
   *     throws fails it before relay-ready (encoding: on the source, InvalidOperation; decoding: on the target, the
   *     caller gets InternalFailure, RESTORE_FAILED): the spot keeps serving where it was, nothing lost.
   */
  public <T> InstanceSpotOptions<S> preserveState(final StateCodec<T> codec,
      final Function<? super S, ? extends T> capture, final BiConsumer<? super S, ? super T> restore) {
    return preserveStateWith(JsonState.spot(codec, capture, restore));
  }
}
