package dev.spotkit.store;

/**
 * A store request broke one of the SPI's limits (FACTS.md "Location Store provider contract"). It is caller
 * misuse, found before anything is sent or changed: the SPI's value types check their limits when they are
 * built, so a provider never sees an oversized key, value, version, batch, scan or reference.
 *
 * <p>The message names the offending value, the limit and the fix, e.g. {@code "store key of 1025 UTF-8 bytes
 * is outside the limit 1..1024 bytes; use a shorter key"}.
 */
public final class StoreLimitException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** What was measured, e.g. {@code "store key"}. */
  private final String subject;
  /** The measured value: a length, a count or a size. */
  private final long value;
  /** The limit the value broke (the upper bound, or the lower bound when the value is below it). */
  private final long limit;

  /**
   * Creates the error.
   *
   * @param subject what was measured.
   * @param value the measured value.
   * @param limit the bound it broke.
   * @param message the full message with value, limit and fix.
   */
  public StoreLimitException(final String subject, final long value, final long limit, final String message) {
    super(message);
    this.subject = subject;
    this.value = value;
    this.limit = limit;
  }

  /**
   * What was measured.
   *
   * @return e.g. {@code "store key"}, {@code "write batch bytes"}.
   */
  public String subject() {
    return subject;
  }

  /**
   * The measured value.
   *
   * @return the length, count or size that broke the limit.
   */
  public long value() {
    return value;
  }

  /**
   * The bound that was broken.
   *
   * @return the limit.
   */
  public long limit() {
    return limit;
  }
}
