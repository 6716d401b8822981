package dev.spotkit.core;

/**
 * A request handler: returns the reply. Runs as one turn; may block (keeps the turn).
 *
 * @param <M> the request type.
 * @param <R> the reply type.
 */
@FunctionalInterface
public interface OnRequest<M, R> {
  /**
   * Handles one request. A thrown {@link SpotkitException} fails the request with that error; any other
   * exception fails it with {@link SpotkitException.InternalFailure}; either way join barriers registered
   * by this turn are discarded (MEM-10).
   *
   * @param request the request.
   * @return the reply, not null.
   * @throws Exception any failure.
   */
  R handle(M request) throws Exception;
}
