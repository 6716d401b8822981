package dev.spotkit.store;

/**
 * Where the Relocation Store keeps one immutable payload; fixed by the framework before the first put, so a put
 * whose answer was lost can be checked by reading or storing again at the same reference (spec 002 section 10).
 *
 * @param value UTF-8 1..4096 bytes.
 */
public record RelocationReference(String value) {

  /**
   * Checks the length.
   *
   * @throws StoreLimitException when empty or longer than 4096 UTF-8 bytes.
   */
  public RelocationReference {
    StoreLimits.checkText("relocation reference", value, StoreLimits.MAX_REFERENCE_BYTES);
  }

  @Override
  public String toString() {
    return value;
  }
}
