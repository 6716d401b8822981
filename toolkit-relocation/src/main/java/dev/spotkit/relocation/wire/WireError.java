package dev.spotkit.relocation.wire;

/**
 * Every way framework bytes can be refused, in one place, for the relocation commands of this module and the
 * framework commands of toolkit-core alike: frame and stream decoding (the first nine values carry the golden
 * fixtures' {@code error} strings, see {@link #code()}), canonical-order checks of the relocation-envelope-v1
 * stream, and chunk assembly against the command 40 manifest (spec 001 sections 4.2 and 4.3). A value is always
 * carried by a {@link WireFormatException}; the assembler returns that exception inside
 * {@link ChunkOutcome.Failed} or {@link PrepareOutcome.Conflict} instead of throwing it.
 */
public enum WireError {
  /** The frame does not start with {@code 5A 4D}. */
  BAD_MAGIC("bad-magic"),
  /** The wire major byte is not 1. */
  UNSUPPORTED_VERSION("unsupported-version"),
  /** The command byte is not one the decoder reads (relocation: 30, 31, 34, 40, 52 or 53). */
  UNEXPECTED_COMMAND("unexpected-command"),
  /** A flag bit outside 0x0f is set. */
  UNDEFINED_FLAG("undefined-flag"),
  /** A defined flag bit is set that the command does not allow (relocation commands, 20, 47, 48, 49: none). */
  FORBIDDEN_FLAG("forbidden-flag"),
  /** A field runs past the end of the frame or stream. */
  TRUNCATED_FIELD("truncated-field"),
  /** A value is outside its type: zero where non-zero is required, unknown discriminator, bad UTF-8, NUL. */
  INVALID_FIELD("invalid-field"),
  /** A versioned length-delimited section's length differs from the fields it holds. */
  INVALID_BODY_LENGTH("invalid-body-length"),
  /** Bytes follow the last field (or the optional payload envelope). */
  TRAILING_BYTE("trailing-byte"),
  /** A participant vector of the envelope is not in ascending key order (reordered input). */
  NOT_SORTED("not-sorted"),
  /** A participant vector of the envelope repeats a key (duplicated input). */
  DUPLICATE_ENTRY("duplicate-entry"),
  /** Input longer than the receiver's limit (stream bytes, manifest total length or chunk count). */
  OVERSIZED("oversized"),
  /** A chunk ordinal is not below the manifest's payloadChunkCount. */
  CHUNK_OUT_OF_RANGE("chunk-out-of-range"),
  /** The chunks received so far hold more bytes than the manifest's payloadTotalLength. */
  CHUNK_BEYOND_TOTAL("chunk-beyond-total"),
  /** A chunk restates an ordinal already received with different bytes. */
  CHUNK_CONFLICT("chunk-conflict"),
  /** A command 40 restatement for the same relocation identity declares other length, count or checksum. */
  MANIFEST_CONFLICT("manifest-conflict"),
  /** All chunks arrived but their total length is not payloadTotalLength. */
  LENGTH_MISMATCH("length-mismatch"),
  /** All chunks arrived but the CRC-32C of the stream is not payloadChecksumCrc32c. */
  CHECKSUM_MISMATCH("checksum-mismatch");

  private final String code;

  WireError(final String code) {
    this.code = code;
  }

  /**
   * The stable spelling, equal to the golden fixtures' {@code error} string for the frame errors.
   *
   * @return for example {@code "truncated-field"}.
   */
  public String code() {
    return code;
  }
}
