package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Options of one actor registration, set in its configure callback:
 * {@code s.actor("player", Player::new, a -> a.preserveStateWith(new PlayerState()))}. Exactly one relocation
 * policy must be chosen (spec 000 section 6); {@link MeshNode.Builder#start()} refuses zero (NotConfigured) or
 * several (InvalidOperation). Policies never change after start. Not thread-safe; only inside the callback.
 *
 * @param <A> the actor type.
 */
public final class ActorOptions<A extends Actor> {
  final List<NodeConfig.Policy> policies = new ArrayList<>();
  ActorRelocationAdapter<?> adapter;
  int mailboxCapacity;

  ActorOptions() {
  }

  /**
   * DisableRelocation: cross-node moves are refused before capture; same-node joins still work (MEM-19).
   *
   * @return these options.
   */
  public ActorOptions<A> disableRelocation() {
    policies.add(NodeConfig.Policy.DISABLE);
    return this;
  }

  /**
   * RecreateOnRelocation: a move runs the target factory and keeps queue and timers, not application state.
   *
   * @return these options.
   */
  public ActorOptions<A> recreateOnRelocation() {
    policies.add(NodeConfig.Policy.RECREATE);
    return this;
  }

  /**
   * PreserveStateWith: a move captures and restores state through {@code adapter}.
   *
   * @param stateAdapter not null.
   * @return these options.
   */
  public ActorOptions<A> preserveStateWith(final ActorRelocationAdapter<? super A> stateAdapter) {
    if (stateAdapter == null) {
      throw new SpotkitException.InvalidOperation("preserveStateWith needs an ActorRelocationAdapter, not null");
    }
    policies.add(NodeConfig.Policy.PRESERVE);
    this.adapter = stateAdapter;
    return this;
  }

  /**
   * Bounds the actor's mailbox; a send to a full mailbox fails with CapacityExceeded.
   *
   * @param capacity 0 (default) = unbounded; else 1..2^30, rounded up to a power of two (at least 2).
   * @return these options.
   */
  public ActorOptions<A> mailboxCapacity(final int capacity) {
    if (capacity < 0 || capacity > (1 << 30)) {
      throw new SpotkitException.InvalidOperation("mailboxCapacity " + capacity + " must be 0 (unbounded) or"
          + " 1..1073741824");
    }
    this.mailboxCapacity = capacity;
    return this;
  }

  /**
   * PreserveStateWith through JSON, with no hand-written codec (issue 15): on a move {@code capture} turns the
   * actor into a state value (a record of plain values: Strings, numbers, booleans, enums, records, {@code java.util}
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
   *     gets InternalFailure, RESTORE_FAILED), both before relay-ready: the actor keeps serving where it was,
   *     nothing lost.
   */
  public <T> ActorOptions<A> preserveState(final Class<T> stateType,
      final Function<? super A, ? extends T> capture, final BiConsumer<? super A, ? super T> restore) {
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
   *     caller gets InternalFailure, RESTORE_FAILED): the actor keeps serving where it was, nothing lost.
   */
  public <T> ActorOptions<A> preserveState(final StateCodec<T> codec,
      final Function<? super A, ? extends T> capture, final BiConsumer<? super A, ? super T> restore) {
    return preserveStateWith(JsonState.actor(codec, capture, restore));
  }
}
