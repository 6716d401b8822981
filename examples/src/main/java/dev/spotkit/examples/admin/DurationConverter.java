package dev.spotkit.examples.admin;

import java.time.Duration;
import picocli.CommandLine;

/**
 * Parses an operator's duration: a whole number with a unit, {@code 250ms}, {@code 30s}, {@code 2m} or {@code 1h}
 * (or an ISO-8601 {@code PT30S}). A bad value is a usage error (exit 2) naming the accepted forms.
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  /**
   * Parses {@code text}.
   *
   * @param text e.g. {@code 30s}.
   * @return the duration, positive.
   * @throws CommandLine.TypeConversionException when the text is not a positive duration.
   */
  @Override
  public Duration convert(final String text) {
    final java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]{1,9})(ms|s|m|h)").matcher(text.trim());
    Duration d = null;
    if (m.matches()) {
      final long n = Long.parseLong(m.group(1));
      d = switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    } else {
      try {
        d = Duration.parse(text.trim());
      } catch (java.time.format.DateTimeParseException e) {
        d = null;
      }
    }
    if (d == null || d.isNegative() || d.isZero()) {
      throw new CommandLine.TypeConversionException("'" + text + "' is not a positive duration; use e.g. 500ms,"
          + " 30s, 2m or 1h");
    }
    return d;
  }
}
