package dev.spotkit.examples.chat;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.StoreException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code chat-server}: serves the {@link ChatProtocol} until the process is stopped (Ctrl-C).
 *
 * <ul>
 *   <li>{@code --nodes N}: N MeshNodes in this process, one mesh sharing the in-memory stores; node i listens
 *       for clients on {@code --port} + i (all free ports with {@code --port 0}); each node's port is printed.
 *       </li>
 *   <li>{@code --store redis://HOST:PORT --node-index I}: one node per OS process. Every process of the mesh
 *       names the same Redis ({@code --store}, key prefix {@code --store-prefix}) and the same cluster secret
 *       (environment variable {@value #SECRET_ENV}, at least 16 bytes); node I takes client sessions on
 *       {@code --port} + I, so processes started with the same {@code --port} and indexes 0, 1, 2 listen on
 *       7000, 7001, 7002. The nodes find each other through the MeshNode descriptors in the Location Store
 *       (each publishes its mesh endpoint: {@code --mesh-host} and a free port), so there is no peer list.
 *       Node 0 activates the room directory at start.</li>
 *   <li>{@code --metrics-port N}: serves the nodes' metrics ({@code spotkit.*} meters, see
 *       {@code MeshNode.Builder#metrics}) in the Prometheus text format on {@code http://HOST:N/metrics}, HOST being
 *       {@code --metrics-host} (default 127.0.0.1, loopback only; given without {@code --metrics-port} it is a usage
 *       error); 0 picks a free port; the URL is printed. Every node's meters carry the tag {@code node} = its index
 *       ({@link MetricsOptions}).</li>
 * </ul>
 *
 * <p>A port out of range, one that cannot be bound (in use, no permission), a store that cannot be reached, a
 * missing secret or a bad option combination prints one {@code chat-server: ...} line on stderr and exits with
 * code 2 (a usage error), without a stack trace. A node that stops itself while running (its owner lease was
 * lost for good, e.g. Redis restarted empty or paused longer than the lease TTL; see MeshNode#terminated)
 * prints one {@code chat-server: ...} line and exits with code 75, so a supervisor restarts the process.
 */
@Command(name = "chat-server", mixinStandardHelpOptions = true,
    description = "Chat rooms over a line protocol; try: nc 127.0.0.1 <port>, then /nick ann, /join lobby, hello.")
public final class ChatServerCommand implements Callable<Integer> {
  /** The environment variable holding the cluster secret of a one-node-per-process mesh. */
  public static final String SECRET_ENV = "SPOTKIT_CLUSTER_SECRET";

  @Option(names = "--host", defaultValue = "127.0.0.1",
      description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every interface).")
  String host;

  @Option(names = "--port", defaultValue = "7000",
      description = "Session port of node 0; node i listens on port + i; 0 for free ports (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--nodes", defaultValue = "1",
      description = "MeshNodes in this process, sharing in-memory stores (default: ${DEFAULT-VALUE}).")
  int nodes;

  /** {@code --store}, {@code --node-index} and {@code --mesh-host}: one node per process. */
  @Mixin
  MeshMemberOptions member = new MeshMemberOptions();

  @Option(names = "--store-prefix", defaultValue = "spotkit-chat", paramLabel = "PREFIX",
      description = "With --store: the Redis key prefix of this mesh; the same for every node (default:"
          + " ${DEFAULT-VALUE}).")
  String storePrefix;

  /** {@code --metrics-port} and {@code --metrics-host}: the Prometheus endpoint, when asked for. */
  @Mixin
  MetricsOptions metrics = new MetricsOptions();

  /** Where the error line goes; stderr unless a test replaces it. */
  PrintStream err = System.err;

  /** Where the listening lines go; stdout unless a test replaces it. */
  PrintStream out = System.out;

  /** The environment (the cluster secret); the process environment unless a test replaces it. */
  Map<String, String> env = System.getenv();

  @Override
  public Integer call() throws Exception {
    final ChatServer server = start();
    if (server == null) {
      return CommandLine.ExitCode.USAGE;
    }
    final CountDownLatch stopped = new CountDownLatch(1);
    final java.util.concurrent.atomic.AtomicReference<Throwable> failStop = new java.util.concurrent.atomic
        .AtomicReference<>();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      closeMetrics();
      stopped.countDown();
    }, "chat-server-shutdown"));
    for (dev.spotkit.core.MeshNode node : server.nodes()) { // a node that stopped itself stops the process
      node.terminated().whenComplete((ok, failure) -> {
        if (failure != null && failStop.compareAndSet(null, failure)) {
          stopped.countDown();
        }
      });
    }
    printPorts(server);
    stopped.await();
    final Throwable failure = failStop.get();
    if (failure != null) {
      err.println("chat-server: " + failure.getMessage() + "; exiting with status " + EXIT_NODE_STOPPED
          + " so a supervisor restarts it");
      server.close();
      closeMetrics();
      return EXIT_NODE_STOPPED;
    }
    return CommandLine.ExitCode.OK;
  }

  /**
   * Exit status when a node stopped itself (its owner lease was lost for good, e.g. Redis restarted empty):
   * 75 (EX_TEMPFAIL), so a supervisor restarts the process.
   */
  static final int EXIT_NODE_STOPPED = 75;

  /** Stops the metrics endpoint, if any. */
  void closeMetrics() {
    metrics.close();
  }

  private void printPorts(final ChatServer server) {
    final List<Integer> ports = server.ports();
    metrics.printUrl(out, "chat-server");
    if (member.store() != null) {
      out.println("chat-server: node " + member.index() + " (id " + server.node().nodeRid().hex() + ") of mesh '"
          + ChatServer.MESH_NAME + "' (store " + member.store()
          + ", prefix " + storePrefix + ") listening on " + host + ":" + ports.get(0) + " (Ctrl-C stops)");
      return;
    }
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
    final String unbound = metrics.start();
    if (unbound != null) {
      err.println("chat-server: " + unbound);
      return null;
    }
    ChatServer started = null;
    try {
      started = startNodes();
      return started;
    } finally {
      if (started == null) { // no server (an error line was printed, or an unexpected failure): no endpoint either
        closeMetrics();
      }
    }
  }

  private ChatServer startNodes() {
    try {
      if (member.store() == null) {
        final int[] next = {0};
        return ChatServer.start(host, port, nodes, builder -> metrics.node(next[0]++).accept(builder));
      }
      final int index = member.index();
      final MeshMemberOptions.Stores stores = member.connect(storePrefix);
      return ChatServer.startMember(host, port == 0 ? 0 : port + index, member.meshHost(), member.secret(env),
          stores.locations(), stores.relocations(), index == 0, metrics.node(index));
    } catch (SpotkitException | StoreException e) {
      err.println("chat-server: " + (member.store() != null && e instanceof StoreException ? "the store "
          + member.store()
          + " cannot be used: " : "") + e.getMessage());
      return null;
    } catch (IllegalArgumentException e) {
      err.println("chat-server: --store " + member.store() + " / --store-prefix " + storePrefix + ": "
          + e.getMessage());
      return null;
    }
  }

  /**
   * What is wrong with a listen address, or null: it must be a literal or name that resolves (without waiting on
   * DNS for a literal) to the wildcard address or to an address of one of this machine's interfaces.
   */
  static String hostProblem(final String option, final String value) {
    final java.net.InetAddress address;
    try {
      address = java.net.InetAddress.getByName(value);
    } catch (java.net.UnknownHostException | SecurityException e) {
      return option + " " + value + " is not an address or a known host name; e.g. 127.0.0.1, or 0.0.0.0 for every"
          + " interface";
    }
    try {
      if (address.isAnyLocalAddress() || address.isLoopbackAddress()
          || java.net.NetworkInterface.getByInetAddress(address) != null) {
        return null;
      }
    } catch (java.net.SocketException e) {
      return null; // the interfaces cannot be listed here: let the bind itself tell
    }
    return option + " " + value + " (" + address.getHostAddress() + ") is not an address of this machine; listen on"
        + " one of its interfaces, e.g. 127.0.0.1, or 0.0.0.0 for every interface";
  }

  /** What is wrong with the options, or null. */
  private String problem() {
    final String badHost = hostProblem("--host", host);
    if (badHost != null) {
      return badHost;
    }
    final String badMeshHost = member.store() == null ? null : hostProblem("--mesh-host", member.meshHost());
    if (badMeshHost != null) {
      return badMeshHost;
    }
    final String badMetrics = metrics.problem();
    if (badMetrics != null) {
      return badMetrics;
    }
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
    if (member.store() != null && nodes != 1) {
      return "--nodes runs every node in this process; --store (with --node-index) runs one node per process:"
          + " use one or the other";
    }
    return member.problem(port, env);
  }
}
