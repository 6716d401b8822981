package dev.spotkit.examples.chat;

import dev.spotkit.core.MeshNode;
import io.micrometer.core.instrument.Tag;
import java.io.IOException;
import java.io.PrintStream;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * The Prometheus metrics options of the example servers, shared by {@code chat-server} and {@code game-server} (a
 * picocli mixin: {@code @Mixin MetricsOptions metrics}): {@code --metrics-port N} serves the nodes' meters
 * ({@code spotkit.*}, see {@code MeshNode.Builder#metrics}) on {@code http://HOST:N/metrics} through a
 * {@link MetricsEndpoint}, HOST being {@code --metrics-host} (default {@value #DEFAULT_HOST}, loopback only); 0 picks
 * a free port. Every node's meters carry the tag {@code node} = its index. Without {@code --metrics-port} there is no
 * endpoint and the nodes keep no meters; {@code --metrics-host} alone is a usage error ({@link #problem()}).
 *
 * <p>Use: {@link #problem()} with the other option checks, then {@link #start()} before the nodes, {@link #node(int)}
 * on each node's builder, and {@link #close()} when the server stops (or failed to start).
 */
public final class MetricsOptions {
  /** The address the endpoint binds without {@code --metrics-host}: loopback, only this machine can scrape. */
  public static final String DEFAULT_HOST = "127.0.0.1";

  @Option(names = "--metrics-port", paramLabel = "N",
      description = "Serve Prometheus metrics on http://<metrics-host>:N/metrics; 0 for a free port (default: no"
          + " metrics endpoint, and the nodes keep no meters).")
  Integer port;

  @Option(names = "--metrics-host", paramLabel = "HOST",
      description = "With --metrics-port: the address the metrics endpoint binds (default: " + DEFAULT_HOST
          + ", loopback only; 0.0.0.0 for every interface).")
  String host;

  /** The running endpoint after {@link #start()} with {@code --metrics-port}, else null. */
  private volatile MetricsEndpoint endpoint;

  /**
   * What is wrong with these options, or null: {@code --metrics-host} without {@code --metrics-port}, a metrics host
   * that is no address of this machine, a port out of range.
   *
   * @return the problem, one line naming the option and the fix; null when the options are fine.
   */
  public String problem() {
    if (port == null) {
      return host == null ? null : "--metrics-host " + host + " needs --metrics-port: add --metrics-port N (0 for"
          + " a free port) to serve metrics, or drop --metrics-host";
    }
    final String badHost = ChatServerCommand.hostProblem("--metrics-host", host());
    if (badHost != null) {
      return badHost;
    }
    if (port < 0 || port > 65535) {
      return "--metrics-port " + port + " must be between 0 and 65535 (0 = a free port)";
    }
    return null;
  }

  /**
   * The address the endpoint binds.
   *
   * @return {@code --metrics-host}, or {@value #DEFAULT_HOST} when not given.
   */
  public String host() {
    return host == null ? DEFAULT_HOST : host;
  }

  /**
   * Starts the endpoint when {@code --metrics-port} was given (after {@link #problem()} found nothing wrong).
   *
   * @return null when it runs or none was asked for; else one line saying why the port cannot be bound.
   */
  public String start() {
    if (port == null) {
      return host == null ? null : "--metrics-host " + host + " needs --metrics-port: add --metrics-port N (0 for"
          + " a free port) to serve metrics, or drop --metrics-host";
    }
    try {
      endpoint = MetricsEndpoint.start(host(), port);
      return null;
    } catch (IOException | RuntimeException e) {
      return "--metrics-port " + port + " on " + host() + " cannot be bound: " + e.getMessage()
          + "; choose another port, or 0 for a free one";
    }
  }

  /**
   * The running endpoint.
   *
   * @return it, or null before {@link #start()}, without {@code --metrics-port} or after {@link #close()}.
   */
  public MetricsEndpoint endpoint() {
    return endpoint;
  }

  /**
   * What node {@code index}'s builder needs: the endpoint's registry with the tag {@code node} = {@code index} while
   * the endpoint runs, else nothing.
   *
   * @param index the node's index in its mesh ({@code --nodes} position or {@code --node-index}).
   * @return the adjustment to apply to the builder before it starts.
   */
  public Consumer<MeshNode.Builder> node(final int index) {
    final MetricsEndpoint running = endpoint;
    return builder -> {
      if (running != null) {
        builder.metrics(running.registry(), Tag.of("node", String.valueOf(index)));
      }
    };
  }

  /**
   * Prints where the metrics are served, when they are.
   *
   * @param out where the line goes.
   * @param command the command's name, the line's prefix, e.g. {@code chat-server}.
   */
  public void printUrl(final PrintStream out, final String command) {
    final MetricsEndpoint running = endpoint;
    if (running != null) {
      out.println(command + ": metrics on http://" + running.host() + ":" + running.port() + "/metrics");
    }
  }

  /** Stops the endpoint, if any. Idempotent. */
  public void close() {
    final MetricsEndpoint running = endpoint;
    endpoint = null;
    if (running != null) {
      running.close();
    }
  }
}
