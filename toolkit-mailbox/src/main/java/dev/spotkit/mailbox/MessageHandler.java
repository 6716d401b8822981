package dev.spotkit.mailbox;

/**
 * Runs one message of a {@link Mailbox}. Called on a dispatcher worker (a virtual thread), never for two messages
 * of the same {@link ExecutionGate} at once. It may block: the mailbox keeps its claim until it returns, and other
 * gates keep running. A thrown exception goes to the dispatcher's uncaught handler and the next message runs.
 *
 * @param <T> message type.
 */
@FunctionalInterface
public interface MessageHandler<T> {
    /**
     * Handles one message.
     *
     * @param message the message, never {@code null}.
     * @throws Exception any failure; reported to the dispatcher's uncaught handler.
     */
    void onMessage(T message) throws Exception;
}
