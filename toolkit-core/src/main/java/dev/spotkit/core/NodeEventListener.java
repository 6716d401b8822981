package dev.spotkit.core;

/**
 * Receives a node's {@link NodeEvent}s (see {@link NodeEvents}).
 *
 * <p>Thread: called on the node's event thread ({@code spotkit-events-<mesh>}, a virtual thread), never inside a
 * dispatcher turn, a Netty event loop or a system timer; one event at a time, in emission order, for every listener
 * of the node. A listener that blocks delays the later events of its node (not the node itself: events beyond
 * {@link NodeEvents#QUEUE_LIMIT} waiting are dropped and counted). An exception it throws is logged and counted
 * ({@link NodeEvents#listenerFailures()}) and never reaches the runtime.
 */
@FunctionalInterface
public interface NodeEventListener {

  /**
   * One event.
   *
   * @param event the event; never null.
   */
  void onEvent(NodeEvent event);
}
