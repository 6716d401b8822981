package dev.spotkit.core;

import dev.spotkit.core.internal.HandlerTable;

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
}
