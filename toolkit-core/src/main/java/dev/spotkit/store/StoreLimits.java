package dev.spotkit.store;

import java.util.Objects;

/**
 * The SPI's size limits (FACTS.md "Location Store provider contract", "Relocation Store") and the checks the
 * value types run when they are built. Every check throws {@link StoreLimitException} before anything is sent.
 */
public final class StoreLimits {
  /** A key is 1..1024 UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 1024;
  /** A stored value is at most 1 MiB. */
  public static final int MAX_VALUE_BYTES = 1 << 20;
  /** A StoreVersion is 1..4096 UTF-8 bytes. */
  public static final int MAX_VERSION_BYTES = 4096;
  /** A write batch touches at most 2,048 distinct keys. */
  public static final int MAX_BATCH_KEYS = 2048;
  /** A write batch carries at most 4 MiB of keys, versions and values. */
  public static final int MAX_BATCH_BYTES = 4 << 20;
  /** A scan page holds 1..1000 entries. */
  public static final int MAX_SCAN_ENTRIES = 1000;
  /** A scan page holds at most 4 MiB of keys, versions and values. */
  public static final int MAX_PAGE_BYTES = 4 << 20;
  /** A scan continuation token is 1..4096 bytes. */
  public static final int MAX_CURSOR_BYTES = 4096;
  /** A relocation reference is 1..4096 UTF-8 bytes. */
  public static final int MAX_REFERENCE_BYTES = 4096;
  /**
   * A Relocation Store payload is at most 16 MiB. Spotkit's choice (the contract names no figure): the
   * default node-to-node frame limit, so any payload one frame carried can be stored.
   */
  public static final int MAX_RELOCATION_PAYLOAD_BYTES = 16 << 20;

  private StoreLimits() {
  }

  /**
   * The UTF-8 length of {@code text}, refusing unpaired surrogates (they have no UTF-8 form).
   *
   * @param subject what the text is, for the message.
   * @param text the text.
   * @return the number of UTF-8 bytes.
   * @throws IllegalArgumentException when the text has an unpaired surrogate.
   */
  public static int utf8Length(final String subject, final String text) {
    int bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      final char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(subject + " has an unpaired surrogate at index " + i
            + " and so no UTF-8 form; pass well-formed text");
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }

  /**
   * Checks that {@code text} is 1..{@code max} UTF-8 bytes.
   *
   * @param subject what the text is, e.g. {@code "store key"}.
   * @param text the text.
   * @param max the upper bound in bytes.
   * @return the UTF-8 length.
   * @throws StoreLimitException when empty or too long.
   */
  public static int checkText(final String subject, final String text, final int max) {
    Objects.requireNonNull(text, subject);
    final int length = utf8Length(subject, text);
    if (length < 1 || length > max) {
      throw new StoreLimitException(subject, length, length < 1 ? 1 : max, subject + " of " + length
          + " UTF-8 bytes is outside the limit 1.." + max + " bytes; use " + (length < 1 ? "a non-empty" : "a shorter")
          + " " + subject.substring(subject.indexOf(' ') + 1));
    }
    return length;
  }

  /**
   * Checks a Location Store key.
   *
   * @param key the key.
   * @return its UTF-8 length, 1..1024.
   * @throws StoreLimitException when out of range.
   */
  public static int checkKey(final String key) {
    return checkText("store key", key, MAX_KEY_BYTES);
  }

  /**
   * Checks the keys of one {@link LocationStore#readAll(java.util.List)}.
   *
   * @param keys 1..{@link #MAX_BATCH_KEYS} keys, each UTF-8 1..1024 bytes; repeats allowed.
   * @throws StoreLimitException when the list is empty or longer than 2,048, or a key is out of range.
   * @throws NullPointerException when the list or a key is null.
   */
  public static void checkReadAll(final java.util.List<String> keys) {
    Objects.requireNonNull(keys, "keys");
    if (keys.isEmpty() || keys.size() > MAX_BATCH_KEYS) {
      throw new StoreLimitException("read keys", keys.size(), keys.isEmpty() ? 1 : MAX_BATCH_KEYS, "a read of "
          + keys.size() + " keys is outside the limit 1.." + MAX_BATCH_KEYS + " keys; split it into several reads");
    }
    for (String key : keys) {
      checkKey(Objects.requireNonNull(key, "key"));
    }
  }

  /**
   * Checks a Location Store value.
   *
   * @param value the value.
   * @throws StoreLimitException when over 1 MiB.
   */
  public static void checkValue(final StoreBytes value) {
    Objects.requireNonNull(value, "value");
    if (value.size() > MAX_VALUE_BYTES) {
      throw new StoreLimitException("store value", value.size(), MAX_VALUE_BYTES, "store value of " + value.size()
          + " bytes exceeds the limit of " + MAX_VALUE_BYTES + " bytes (1 MiB); split it over several keys");
    }
  }

  /**
   * A key made printable for messages: control bytes such as the 0x00 separators of logical keys as
   * {@code \0} or {@code \\uXXXX}, and at most 80 characters.
   *
   * @param key the key.
   * @return the printable form.
   */
  public static String printable(final String key) {
    final StringBuilder out = new StringBuilder();
    for (int i = 0; i < key.length() && out.length() < 80; i++) {
      appendPrintable(out, key.charAt(i));
    }
    return out.length() >= 80 ? out + "..." : out.toString();
  }

  /**
   * Text made printable for logs and exception messages, whole: control bytes such as the 0x00 separators of
   * logical keys as {@code \0}, others as {@code \\uXXXX}, so log files stay text (grep does not call them
   * binary). Used for every store key or store-call description that reaches a log line or a message.
   *
   * @param text a key, or a message containing keys.
   * @return the printable form, same length or longer.
   */
  public static String escape(final String text) {
    boolean clean = true;
    for (int i = 0; i < text.length() && clean; i++) {
      final char c = text.charAt(i);
      clean = c >= 0x20 && c != 0x7f;
    }
    if (clean) {
      return text;
    }
    final StringBuilder out = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      appendPrintable(out, text.charAt(i));
    }
    return out.toString();
  }

  private static void appendPrintable(final StringBuilder out, final char c) {
    if (c == 0) {
      out.append("\\0");
    } else if (c < 0x20 || c == 0x7f) {
      out.append(String.format("\\u%04x", (int) c));
    } else {
      out.append(c);
    }
  }
}
