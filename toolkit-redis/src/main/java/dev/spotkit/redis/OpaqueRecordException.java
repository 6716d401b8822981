package dev.spotkit.redis;

/**
 * A stored record member is not the layout this Spotkit reads (FACTS.md "Redis layout": an unknown tag or a
 * malformed MessagePack array fails explicitly, never by guessing). Store calls that meet one complete with
 * {@code StoreException.Unavailable} whose cause is this exception, and change nothing.
 */
public final class OpaqueRecordException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the error.
   *
   * @param message what is wrong with the member.
   */
  public OpaqueRecordException(final String message) {
    super(message);
  }
}
