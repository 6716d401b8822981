package dev.spotkit.core.location;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 in one place: record keys (spec 002 section 3.4), request digests, placement hashing. Any thread. */
public final class Sha256 {

  private Sha256() {
  }

  /**
   * The digest.
   *
   * @param bytes the input; only read.
   * @return 32 bytes.
   */
  public static byte[] digest(final byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /**
   * The digest as lowercase hex.
   *
   * @param bytes the input; only read.
   * @return 64 lowercase hex characters.
   */
  public static String hex(final byte[] bytes) {
    return HexFormat.of().formatHex(digest(bytes));
  }
}
