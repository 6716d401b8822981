package dev.spotkit.store;

/**
 * A store call failed. Providers complete a call's stage exceptionally with one of the two kinds, so the
 * framework knows whether the store may have changed (spec 002 section 10):
 * <ul>
 *   <li>{@link Unavailable}: the request was not applied (not sent, refused, or the connection was down
 *       before it was sent); retrying is safe;</li>
 *   <li>{@link Indeterminate}: the request may or may not have been applied (a timeout or a lost answer after
 *       it was sent). The framework never guesses: it re-reads the key and compares the version.</li>
 * </ul>
 * A provider that cannot tell the two apart reports Indeterminate.
 */
public abstract sealed class StoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private StoreException(final String message, final Throwable cause) {
    super(message, cause);
  }

  /** The request was not applied; the store did not change because of it. */
  public static final class Unavailable extends StoreException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed and why.
     * @param cause the provider's failure, or null.
     */
    public Unavailable(final String message, final Throwable cause) {
      super(message, cause);
    }
  }

  /** The request may or may not have been applied; re-read before deciding anything. */
  public static final class Indeterminate extends StoreException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what failed and why.
     * @param cause the provider's failure, or null.
     */
    public Indeterminate(final String message, final Throwable cause) {
      super(message, cause);
    }
  }
}
