package dev.spotkit.core.wire;

/**
 * What a peer got wrong in a framework frame. Each value names the golden fixtures' {@code error} string
 * ({@link #code()}), so a test can compare a refusal with the vector that expects it.
 */
public enum WireError {
  /** The frame does not start with {@code 5A 4D}. */
  BAD_MAGIC("bad-magic"),
  /** The wire major byte is not 1. */
  UNSUPPORTED_VERSION("unsupported-version"),
  /** The command byte is not the one the decoder was asked to read. */
  UNEXPECTED_COMMAND("unexpected-command"),
  /** A flag bit outside 0x01, 0x02, 0x04, 0x08 is set. */
  UNDEFINED_FLAG("undefined-flag"),
  /** A defined flag is set that the command does not allow (commands 20, 47, 48, 49 allow none). */
  FORBIDDEN_FLAG("forbidden-flag"),
  /** A field runs past the end of the frame. */
  TRUNCATED_FIELD("truncated-field"),
  /** A field's value is outside its type: zero where non-zero is required, an unknown enum, bad UTF-8. */
  INVALID_FIELD("invalid-field"),
  /** A versioned, length-delimited section's length does not match the fields it holds. */
  INVALID_BODY_LENGTH("invalid-body-length"),
  /** Bytes follow the last field (or the optional payload envelope). */
  TRAILING_BYTE("trailing-byte");

  private final String code;

  WireError(final String code) {
    this.code = code;
  }

  /**
   * The fixture spelling.
   *
   * @return for example {@code "invalid-body-length"}.
   */
  public String code() {
    return code;
  }
}
