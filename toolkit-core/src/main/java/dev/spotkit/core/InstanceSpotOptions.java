package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Options of one Instance Spot registration: exactly one relocation policy (spec 000 section 6). Not
 * thread-safe; only inside the callback.
 *
 * @param <S> the spot type.
 */
public final class InstanceSpotOptions<S extends InstanceSpot> {
  final List<NodeConfig.Policy> policies = new ArrayList<>();
  SpotRelocationAdapter<?> adapter;

  InstanceSpotOptions() {
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
   *     it on the source and a state that does not decode fails it on the target, both with InvalidOperation and
   *     before relay-ready: the spot keeps serving where it was, nothing lost.
   */
  public <T> InstanceSpotOptions<S> preserveState(final Class<T> stateType,
      final Function<? super S, ? extends T> capture, final BiConsumer<? super S, ? super T> restore) {
    return preserveStateWith(JsonState.spot(stateType, capture, restore));
  }
}
