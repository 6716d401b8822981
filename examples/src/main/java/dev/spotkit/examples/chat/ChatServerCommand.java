package dev.spotkit.examples.chat;

import dev.spotkit.core.SpotkitException;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code chat-server}: serves the {@link ChatProtocol} until the process is stopped (Ctrl-C).
 *
 * <ul>
 *   <li>{@code --nodes N}: N MeshNodes in this process, one mesh sharing the in-memory stores; node i listens
 *       for clients on {@code --port} + i (all free ports with {@code --port 0}); each node's port is printed.
 *       </li>
 *   <li>{@code --node-index I --peers HOST:PORT,... --store URI}: one node per OS process (designed, not yet
 *       runnable). This process runs node I of the mesh; {@code --peers} lists every node's mesh endpoint in
 *       node-index order, and node I binds its mesh listener to entry I; {@code --store} names the Location
 *       Store all processes share, e.g. {@code redis://HOST:6379}. No such store exists yet (the Redis store
 *       is upcoming), so any of these options prints why and exits with code 2.</li>
 * </ul>
 *
 * <p>A port out of range, one that cannot be bound (in use, no permission), or a bad option combination
 * prints one {@code chat-server: ...} line on stderr and exits with code 2 (a usage error), without a stack
 * trace.
 */
@Command(name = "chat-server", mixinStandardHelpOptions = true,
    description = "Chat rooms over a line protocol; try: nc 127.0.0.1 <port>, then /nick ann, /join lobby, hello.")
public final class ChatServerCommand implements Callable<Integer> {

  @Option(names = "--host", defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
  String host;

  @Option(names = "--port", defaultValue = "7000",
      description = "Session port of node 0; node i listens on port + i; 0 for free ports (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--nodes", defaultValue = "1",
      description = "MeshNodes in this process, sharing in-memory stores (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--node-index", paramLabel = "I",
      description = "One node per process: run node I of --peers (needs a shared --store; not available yet).")
  Integer nodeIndex;

  @Option(names = "--peers", split = ",", paramLabel = "HOST:PORT",
      description = "One node per process: every node's mesh endpoint in node-index order (with --node-index).")
  List<String> peers;

  @Option(names = "--store", paramLabel = "URI",
      description = "One node per process: the Location Store all nodes share, e.g. redis://HOST:6379 (upcoming).")
  String store;

  /** Where the error line goes; stderr unless a test replaces it. */
  PrintStream err = System.err;

  /** Where the listening lines go; stdout unless a test replaces it. */
  PrintStream out = System.out;

  @Override
  public Integer call() throws Exception {
    final ChatServer server = start();
    if (server == null) {
      return CommandLine.ExitCode.USAGE;
    }
    final CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "chat-server-shutdown"));
    printPorts(server);
    stopped.await();
    return CommandLine.ExitCode.OK;
  }

  private void printPorts(final ChatServer server) {
    final List<Integer> ports = server.ports();
    if (ports.size() == 1) {
      out.println("chat-server: listening on " + host + ":" + ports.get(0) + " (Ctrl-C stops)");
      return;
    }
    for (int i = 0; i < ports.size(); i++) {
      out.println("chat-server: node " + i + " listening on " + host + ":" + ports.get(i));
    }
    out.println("chat-server: " + ports.size() + " nodes in mesh '" + ChatServer.MESH_NAME + "'; connect to any"
        + " of them (Ctrl-C stops)");
  }

  /**
   * Starts the server, or prints why it cannot.
   *
   * @return the running server, or null after printing one error line.
   */
  ChatServer start() {
    final String problem = problem();
    if (problem != null) {
      err.println("chat-server: " + problem);
      return null;
    }
    try {
      return ChatServer.start(host, port, nodes);
    } catch (SpotkitException e) {
      err.println("chat-server: " + e.getMessage());
      return null;
    }
  }

  /** What is wrong with the options, or null. */
  private String problem() {
    if (port < 0 || port > 65535) {
      return "--port " + port + " must be between 0 and 65535 (0 = a free port)";
    }
    if (nodes < 1 || nodes > ChatServer.MAX_NODES) {
      return "--nodes " + nodes + " must be between 1 and " + ChatServer.MAX_NODES;
    }
    if (port > 0 && port + nodes - 1 > 65535) {
      return "--port " + port + " with --nodes " + nodes + " needs ports up to " + (port + nodes - 1)
          + ", above 65535; use a lower --port, or 0 for free ports";
    }
    if (nodeIndex == null && peers == null && store == null) {
      return null;
    }
    if (nodes != 1) {
      return "--nodes runs every node in this process; --node-index, --peers and --store run one node per"
          + " process: use one or the other";
    }
    if ((nodeIndex == null) != (peers == null)) {
      return "one node per process needs both --node-index I and --peers HOST:PORT,... (every node's mesh"
          + " endpoint, in node-index order)";
    }
    if (nodeIndex != null && (nodeIndex < 0 || nodeIndex >= peers.size())) {
      return "--node-index " + nodeIndex + " must be between 0 and " + (peers.size() - 1) + " (one per --peers"
          + " entry)";
    }
    for (String peer : peers == null ? List.<String>of() : peers) {
      final int colon = peer.lastIndexOf(':');
      if (colon <= 0 || !peer.substring(colon + 1).matches("[0-9]{1,5}")
          || Integer.parseInt(peer.substring(colon + 1)) > 65535) {
        return "--peers entry '" + peer + "' is not HOST:PORT";
      }
    }
    return "one node per process needs a Location Store shared by every process" + (store == null ? ""
        : " (--store " + store + " is not one: no shared store is available yet)")
        + "; the Redis store (--store redis://HOST:6379) is upcoming. Until then run every node in one process"
        + " with --nodes N";
  }
}
