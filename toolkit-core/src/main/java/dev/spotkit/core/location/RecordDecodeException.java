package dev.spotkit.core.location;

/**
 * A stored record could not be read (spec 002 section 3.4): the framework fails explicitly instead of guessing.
 * {@link UnknownVersion} is a {@code recordVersion} this build does not know (a newer writer); {@link Malformed}
 * is anything else that is not the canonical form.
 */
public abstract sealed class RecordDecodeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private RecordDecodeException(final String message, final Throwable cause) {
    super(message, cause);
  }

  /** The record's {@code recordVersion} is not one this build reads. */
  public static final class UnknownVersion extends RecordDecodeException {
    private static final long serialVersionUID = 1L;
    private final long recordVersion;

    /**
     * Creates the error.
     *
     * @param record which record, e.g. {@code "authority record"}.
     * @param recordVersion the version found.
     */
    public UnknownVersion(final String record, final long recordVersion) {
      super(record + " has recordVersion " + recordVersion + ", but this build reads only recordVersion "
          + RecordJson.RECORD_VERSION + "; upgrade this node before it reads records a newer node wrote", null);
      this.recordVersion = recordVersion;
    }

    /**
     * The version found.
     *
     * @return the recordVersion.
     */
    public long recordVersion() {
      return recordVersion;
    }
  }

  /** The bytes are not a canonical record of the expected shape. */
  public static final class Malformed extends RecordDecodeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the error.
     *
     * @param message what is wrong, with the field path.
     * @param cause the parser's failure, or null.
     */
    public Malformed(final String message, final Throwable cause) {
      super(message, cause);
    }
  }
}
