package dev.spotkit.examples.chat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * {@code chat-server --metrics-port}: a Prometheus scrape endpoint on the JDK's HTTP server. {@code GET /metrics}
 * (and {@code GET /}) answers the text exposition format of {@link #registry()}, which every node of the server
 * publishes to ({@code MeshNode.Builder#metrics}); any other path is 404, any other method 405. Scrapes run on
 * virtual threads, one at a time per request. Any thread.
 */
public final class MetricsEndpoint implements AutoCloseable {
  /** Content type of the Prometheus text format 0.0.4. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final PrometheusMeterRegistry registry;
  private final HttpServer server;
  private final ExecutorService threads;

  private MetricsEndpoint(final PrometheusMeterRegistry registry, final HttpServer server,
      final ExecutorService threads) {
    this.registry = registry;
    this.server = server;
    this.threads = threads;
  }

  /**
   * Binds {@code host:port} and starts serving a new Prometheus registry.
   *
   * @param host the address to bind, e.g. 127.0.0.1 (loopback: only this machine can scrape).
   * @param port 0..65535; 0 picks a free port (see {@link #port()}).
   * @return the running endpoint.
   * @throws IOException when the address cannot be bound.
   */
  public static MetricsEndpoint start(final String host, final int port) throws IOException {
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    server.setExecutor(threads);
    final MetricsEndpoint endpoint = new MetricsEndpoint(registry, server, threads);
    server.createContext("/", endpoint::handle);
    server.start();
    return endpoint;
  }

  /** @return the registry the nodes publish to. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** @return the bound port. */
  public int port() {
    return server.getAddress().getPort();
  }

  /** @return the bound address, e.g. {@code 127.0.0.1}. */
  public String host() {
    return server.getAddress().getHostString();
  }

  private void handle(final HttpExchange exchange) throws IOException {
    try (exchange) {
      final String path = exchange.getRequestURI().getPath();
      if (!"/metrics".equals(path) && !"/".equals(path)) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      final byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      if ("HEAD".equals(exchange.getRequestMethod())) {
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** Stops the HTTP server (at most 1 s for scrapes in progress) and the registry. Idempotent. */
  @Override
  public void close() {
    server.stop(1);
    threads.shutdown();
    registry.close();
  }
}
