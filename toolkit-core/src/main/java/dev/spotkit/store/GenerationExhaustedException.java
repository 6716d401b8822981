package dev.spotkit.store;

/**
 * The store-wide ObjectGeneration sequence already issued 2^63-1; the store did not change (LOC-02). The
 * framework reports it to callers as its typed {@code GenerationExhausted} error.
 */
public final class GenerationExhaustedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message names the last issued value.
   */
  public GenerationExhaustedException(final String message) {
    super(message);
  }
}
