package dev.spotkit.core;

/**
 * A one-way message handler. Runs as one turn of its actor or spot; may block (keeps the turn).
 *
 * @param <M> the message type.
 */
@FunctionalInterface
public interface OnMessage<M> {
  /**
   * Handles one message. Throwing ends the turn abnormally: join barriers it registered are discarded
   * (MEM-10) and the error is logged.
   *
   * @param message the message.
   * @throws Exception any failure.
   */
  void handle(M message) throws Exception;
}
