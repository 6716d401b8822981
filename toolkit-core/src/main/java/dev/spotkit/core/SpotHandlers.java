package dev.spotkit.core;

/**
 * Registers a spot's direct-message handlers in {@link Spot#configure(SpotHandlers)}: fluent, one handler per message
 * class. A message is matched by its exact class first, then by the first registered supertype. Only during
 * configure.
 */
public sealed interface SpotHandlers permits HandlersImpl {

  /**
   * A one-way handler.
   *
   * @param type the message class.
   * @param handler runs once per message, as one turn.
   * @param <M> message type.
   * @return this registry.
   * @throws SpotkitException.InvalidOperation when {@code type} already has a handler, or after configure.
   */
  <M> SpotHandlers message(Class<M> type, OnMessage<? super M> handler);

  /**
   * A request handler: its return value is the reply.
   *
   * @param type the request class.
   * @param handler runs once per request, as one turn.
   * @param <M> request type.
   * @param <R> reply type.
   * @return this registry.
   * @throws SpotkitException.InvalidOperation when {@code type} already has a handler, or after configure.
   */
  <M, R> SpotHandlers request(Class<M> type, OnRequest<? super M, ? extends R> handler);
}
