package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Options of one User Spot registration: execution mode and exactly one relocation policy (spec 000 section
 * 6, spec 003 section 5). SpotWide (default): the spot and its members share one execution gate. PerActor:
 * each member keeps its own gate; its spot shell moves no state, so only {@link #recreateOnRelocation()} is
 * allowed (another policy is a startup error). Not thread-safe; only inside the callback.
 *
 * @param <S> the spot type.
 */
public final class UserSpotOptions<S extends UserSpot<?>> {
  final List<NodeConfig.Policy> policies = new ArrayList<>();
  SpotRelocationAdapter<?> adapter;
  boolean perActor;
  boolean applicationSignaled;

  UserSpotOptions() {
  }

  /**
   * SpotWide execution (the default): one turn at a time across the spot and its members.
   *
   * @return these options.
   */
  public UserSpotOptions<S> spotWide() {
    perActor = false;
    return this;
  }

  /**
   * PerActor execution: members keep their own gates.
   *
   * @return these options.
   */
  public UserSpotOptions<S> perActor() {
    perActor = true;
    return this;
  }

  /**
   * ApplicationSignaled relocation coordination (spec 003 section 5.1; default: FrameworkManaged, where a move seals
   * the Spot at any turn boundary): a move of this Spot waits until a turn registers
   * {@code ctx.relocationReady().defer()} ({@link RelocationReady}), at most 20 s, and
   * {@link UserSpot#onRelocationReadyCompleted(RelocationReadyOutcome)} tells where the Spot goes on. SpotWide only
   * (with PerActor the registration is refused at start with {@link SpotkitException.InvalidOperation}).
   *
   * @return these options.
   */
  public UserSpotOptions<S> applicationSignaledRelocation() {
    applicationSignaled = true;
    return this;
  }

  /**
   * DisableRelocation (not allowed with PerActor).
   *
   * @return these options.
   */
  public UserSpotOptions<S> disableRelocation() {
    policies.add(NodeConfig.Policy.DISABLE);
    return this;
  }

  /**
   * RecreateOnRelocation.
   *
   * @return these options.
   */
  public UserSpotOptions<S> recreateOnRelocation() {
    policies.add(NodeConfig.Policy.RECREATE);
    return this;
  }

  /**
   * PreserveStateWith (not allowed with PerActor).
   *
   * @param stateAdapter not null.
   * @return these options.
   */
  public UserSpotOptions<S> preserveStateWith(final SpotRelocationAdapter<? super S> stateAdapter) {
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
  public <T> UserSpotOptions<S> preserveState(final Class<T> stateType,
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
  public <T> UserSpotOptions<S> preserveState(final StateCodec<T> codec,
      final Function<? super S, ? extends T> capture, final BiConsumer<? super S, ? super T> restore) {
    return preserveStateWith(JsonState.spot(codec, capture, restore));
  }
}
