package dev.spotkit.core;

/**
 * A node's event feed ({@link MeshNode#events()}): relocation start / commit / fail, the spec's relocation warnings
 * as typed events, lease loss and admission stops, node state changes (see {@link NodeEvent} for the list). Each
 * event is also logged by the node as one {@code event=<code> key=value ... node=<rid>} line on logger
 * {@code dev.spotkit.core.events}, with or without listeners: ERROR for {@code location_update_failed} and
 * {@code lease_lost}; WARN for {@code cutover_timeout}, {@code late_cutover}, {@code late_session_route_update},
 * {@code relocation_failed} and {@code lease_admission_changed} when admission stops; INFO for
 * {@code node_state_changed} and admission resuming; DEBUG for {@code relocation_started} and
 * {@code relocation_committed} (one pair per move: a busy chat node moves players all the time).
 *
 * <p>Delivery: on one event thread per node (a virtual thread, created with the first listener), never on a
 * dispatcher turn, so a listener may block or log freely without delaying actors, the mesh or the owner lease.
 * Events reach every listener in emission order. At most {@link #QUEUE_LIMIT} events wait for delivery; beyond that
 * new ones are dropped (still logged) and counted by {@link #dropped()}. Events emitted while no listener is
 * registered are only logged. After the node closed, events still queued are delivered, then the thread ends.
 *
 * <p>Thread-safety: every method may be called from any thread, including from a listener. Not for implementing:
 * the node provides the one instance.
 *
 * <pre>{@code
 * node.events().addListener(event -> {
 *   if (event instanceof NodeEvent.RelocationFailed failed) {
 *     alerts.raise(failed.objectId(), failed.reason());
 *   }
 * });
 * }</pre>
 */
public interface NodeEvents {

  /** Events waiting for delivery at most: 10,000. */
  int QUEUE_LIMIT = 10_000;

  /**
   * Registers a listener for the events emitted from now on. Registering the same listener twice delivers each
   * event to it twice.
   *
   * @param listener the listener.
   * @return this feed.
   * @throws SpotkitException.InvalidOperation when {@code listener} is null.
   */
  NodeEvents addListener(NodeEventListener listener);

  /**
   * Removes one registration of {@code listener}; events already queued for it may still arrive.
   *
   * @param listener the listener.
   * @return true when it was registered.
   */
  boolean removeListener(NodeEventListener listener);

  /**
   * Exceptions thrown by listeners so far (each also logged at WARN, and counted by the
   * {@code spotkit.events.listener.failures} meter when metrics are on).
   *
   * @return 0 or more.
   */
  long listenerFailures();

  /**
   * Events not delivered to listeners because {@link #QUEUE_LIMIT} events were already waiting (each was still
   * logged).
   *
   * @return 0 or more.
   */
  long dropped();
}
