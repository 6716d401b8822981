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

  /**
   * Declares the callback of the named spot timer, so the timer resumes when the spot moves to another node with its
   * members (a SpotWide aggregate move, spec 000 section 7): the move carries each timer's registration (name, period
   * in ms, schedule cursor) and its pending ticks, never the callback (spec 001 section 4.2); the instance the factory
   * builds on the target supplies it here. Start the timer as usual with {@code timers().every(name, period, tick)}
   * (typically in {@code onInitialize}, which a restored spot does not run again); a moved timer whose name the new
   * instance does not declare is dropped with a warning.
   *
   * @param name 1..255 UTF-8 bytes, no NUL.
   * @param tick runs as a turn of the spot, like any timer tick.
   * @return this registry.
   * @throws SpotkitException.InvalidOperation on a bad or duplicate name, or after configure.
   */
  SpotHandlers timer(String name, OnTick tick);
}
