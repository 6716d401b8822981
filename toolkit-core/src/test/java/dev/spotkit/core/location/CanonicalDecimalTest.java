package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link RecordJson#canonicalDecimal}: the hand-written check agrees with {@code 0|[1-9][0-9]{0,18}}. */
class CanonicalDecimalTest {
  private static final java.util.regex.Pattern CANONICAL = java.util.regex.Pattern.compile("0|[1-9][0-9]{0,18}");

  @Test
  void agreesWithTheRegularExpressionOnEdgeCases() {
    for (String text : new String[] {"", "0", "00", "01", "1", "9", "10", "-1", "+1", " 1", "1 ", "1a", "a",
        "9223372036854775807", "9999999999999999999", "10000000000000000000", "1.0", "\u0661", "٣"}) {
      assertThat(RecordJson.canonicalDecimal(text)).as("'%s'", text).isEqualTo(CANONICAL.matcher(text).matches());
    }
  }

  @Test
  void agreesWithTheRegularExpressionOnEveryShortString() {
    final char[] alphabet = {'0', '1', '9', '/', ':', 'x'};
    int checked = 0;
    for (int len = 0; len <= 4; len++) {
      final int total = (int) Math.pow(alphabet.length, len);
      for (int n = 0; n < total; n++) {
        final StringBuilder b = new StringBuilder();
        for (int i = 0, v = n; i < len; i++, v /= alphabet.length) {
          b.append(alphabet[v % alphabet.length]);
        }
        final String text = b.toString();
        assertThat(RecordJson.canonicalDecimal(text)).as("'%s'", text).isEqualTo(CANONICAL.matcher(text).matches());
        checked++;
      }
    }
    assertThat(checked).isEqualTo(1 + 6 + 36 + 216 + 1296);
  }
}
