package dev.spotkit.core;

/**
 * Registers an actor's handlers in {@link Actor#configure(ActorHandlers)}: fluent, one handler per message
 * class. A message is matched by its exact class first, then by the first registered supertype. Only during
 * configure.
 */
public sealed interface ActorHandlers permits HandlersImpl {

  /**
   * A one-way handler.
   *
   * @param type the message class.
   * @param handler runs once per message, as one turn.
   * @param <M> message type.
   * @return this registry.
   * @throws SpotkitException.InvalidOperation when {@code type} already has a handler, or after configure.
   */
  <M> ActorHandlers message(Class<M> type, OnMessage<? super M> handler);

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
  <M, R> ActorHandlers request(Class<M> type, OnRequest<? super M, ? extends R> handler);

  /**
   * Declares the callback of the named timer, so the timer resumes when this actor moves to another node: a cross-
   * node move carries each timer's registration (name, period, schedule cursor) and its pending ticks, never the
   * callback (spec 001 section 4.2), and the target instance built by the factory supplies it here. Start the timer as
   * usual with {@code ctx.timers().every(name, period, tick)}; a moved timer whose name the new instance does not
   * declare is dropped with a warning.
   * @param name 1..255 UTF-8 bytes, no NUL.
   * @param tick runs as a turn of the actor, like any timer tick.
   * @return this registry.
   * @throws SpotkitException.InvalidOperation on a bad or duplicate name, or after configure.
   */
  ActorHandlers timer(String name, OnTick tick);
}
