package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.HandlerTable;

/** Both handler registries over a cell's {@link HandlerTable}. */
final class HandlersImpl implements ActorHandlers, SpotHandlers {
  private final HandlerTable table;

  HandlersImpl(final HandlerTable table) {
    this.table = table;
  }

  @Override
  public <M> HandlersImpl message(final Class<M> type, final OnMessage<? super M> handler) {
    table.addOneWay(type, handler);
    return this;
  }

  @Override
  public <M, R> HandlersImpl request(final Class<M> type, final OnRequest<? super M, ? extends R> handler) {
    table.addRequest(type, handler);
    return this;
  }

  /**
   * Declares a named timer's callback (actors and spots; {@link ActorHandlers#timer}, {@link SpotHandlers#timer}).
   *
   * @param name the timer name.
   * @param tick the callback.
   * @return this registry.
   */
  @Override
  public HandlersImpl timer(final String name, final OnTick tick) {
    table.addTimer(name, tick);
    return this;
  }
}
