package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import picocli.CommandLine;

/**
 * For the example servers' metrics tests ({@code chat-server}, {@code game-server}; both take {@link MetricsOptions}):
 * scrapes a {@link MetricsEndpoint} and sums its samples, and checks the usage errors of the metrics options.
 */
public final class MetricsTestSupport {
  private MetricsTestSupport() {
  }

  /** One run of a server command with its stderr replaced; a run that starts the server does not return. */
  @FunctionalInterface
  public interface Run {
    /**
     * Parses {@code args} and runs the command.
     *
     * @param err where the error line goes.
     * @param args the command line.
     * @return the exit code.
     * @throws Exception what the command throws.
     */
    int run(PrintStream err, String... args) throws Exception;
  }

  /**
   * Asserts that {@code --metrics-port 70000} is a usage error with one line.
   *
   * @param command the command's name, the error line's prefix.
   * @param run runs it.
   * @throws Exception what the command throws.
   */
  public static void assertPortOutOfRangeIsAUsageError(final String command, final Run run) throws Exception {
    assertUsageError(run, command + ": --metrics-port 70000 must be between 0 and 65535 (0 = a free port)",
        "--port", "0", "--metrics-port", "70000");
  }

  /**
   * Asserts that {@code --metrics-host} without {@code --metrics-port} is a usage error with one line (it used to be
   * ignored silently: the server started without an endpoint, so {@code run} did not return).
   *
   * @param command the command's name, the error line's prefix.
   * @param run runs it.
   * @throws Exception what the command throws.
   */
  public static void assertHostWithoutPortIsAUsageError(final String command, final Run run) throws Exception {
    assertUsageError(run, command + ": --metrics-host 0.0.0.0 needs --metrics-port: add --metrics-port N (0 for a"
        + " free port) to serve metrics, or drop --metrics-host", "--port", "0", "--metrics-host", "0.0.0.0");
  }

  /**
   * Asserts that a {@code --metrics-port} another socket holds is a usage error with one line, no stack trace.
   *
   * @param command the command's name, the error line's prefix.
   * @param run runs it.
   * @throws Exception what the command throws.
   */
  public static void assertPortInUseIsAUsageError(final String command, final Run run) throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      final ByteArrayOutputStream err = new ByteArrayOutputStream();
      assertThat(run.run(new PrintStream(err, true, StandardCharsets.UTF_8), "--port", "0", "--metrics-port",
          Integer.toString(taken.getLocalPort()))).isEqualTo(CommandLine.ExitCode.USAGE);
      assertThat(err.toString(StandardCharsets.UTF_8)).startsWith(command + ": --metrics-port "
          + taken.getLocalPort() + " on 127.0.0.1 cannot be bound: ")
          .endsWith("; choose another port, or 0 for a free one" + System.lineSeparator())
          .doesNotContain("\tat ");
    }
  }

  private static void assertUsageError(final Run run, final String line, final String... args) throws Exception {
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(run.run(new PrintStream(err, true, StandardCharsets.UTF_8), args))
        .isEqualTo(CommandLine.ExitCode.USAGE);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(line + System.lineSeparator());
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
