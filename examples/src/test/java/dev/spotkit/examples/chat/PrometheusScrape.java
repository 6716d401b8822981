package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Scrapes a {@link MetricsEndpoint} and sums its samples, for the example servers' metrics tests. */
public final class PrometheusScrape {
  private PrometheusScrape() {
  }

  /**
   * One scrape: asserts a 200 in the text format.
   *
   * @param url e.g. {@code http://127.0.0.1:PORT/metrics}.
   * @return the exposition text.
   * @throws Exception when the endpoint does not answer within 5 s.
   */
  public static String scrape(final String url) throws Exception {
    final HttpURLConnection http = (HttpURLConnection) URI.create(url).toURL().openConnection();
    http.setConnectTimeout(5_000);
    http.setReadTimeout(5_000);
    try {
      assertThat(http.getResponseCode()).isEqualTo(200);
      assertThat(http.getContentType()).startsWith("text/plain");
      try (java.io.InputStream in = http.getInputStream()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
    } finally {
      http.disconnect();
    }
  }

  /**
   * The sum of the samples of {@code metric} whose labels contain every fragment.
   *
   * @param text a scrape.
   * @param metric the sample name, e.g. {@code spotkit_sessions_open}.
   * @param labels fragments such as {@code node="0"}.
   * @return the sum, 0 when no sample matches.
   */
  public static double sum(final String text, final String metric, final String... labels) {
    return text.lines()
        .filter(l -> l.startsWith(metric + "{") || l.startsWith(metric + " "))
        .filter(l -> Arrays.stream(labels).allMatch(l::contains))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
