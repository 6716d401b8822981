package dev.spotkit.core.location;

import java.util.Comparator;

/** Orders strings by code point, which is UTF-8 byte order (the order of stored keys and JSON map keys). */
final class LocationOrder {
  static final Comparator<String> CODE_POINTS = LocationOrder::compare;

  private LocationOrder() {
  }

  static int compare(final String a, final String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      final int ca = a.codePointAt(i);
      final int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }
}
