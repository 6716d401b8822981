package dev.spotkit.relocation.session;

/** Argument checks shared by the event and action records: caller misuse is {@link IllegalArgumentException}. */
final class Checks {
  private Checks() {
  }

  static <T> T present(final String field, final T value) {
    if (value == null) {
      throw new IllegalArgumentException(field + " must not be null");
    }
    return value;
  }

  static long stamp(final long atMs) {
    if (atMs < 0) {
      throw new IllegalArgumentException("atMs " + atMs + " must be in 0..9223372036854775807 (the driver's "
          + "monotonic clock, ms)");
    }
    return atMs;
  }
}
