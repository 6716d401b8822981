package dev.spotkit.examples.chat;

import dev.spotkit.redis.RedisLocationStore;
import dev.spotkit.redis.RedisRelocationStore;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options of one node of a one-node-per-process mesh on Redis, shared by {@code chat-server} and
 * {@code game-server} (a picocli mixin: {@code @Mixin MeshMemberOptions member}): {@code --store redis://HOST:PORT},
 * {@code --node-index I} (session port {@code --port} + I; node 0 holds the mesh's one-of roles: the chat's room
 * directory, the game's gateway) and {@code --mesh-host}; the cluster secret comes from the environment variable
 * {@value ChatServerCommand#SECRET_ENV}. The key prefix stays with each command (its default names the example).
 */
public final class MeshMemberOptions {

  /** Most node indexes (session port = --port + index). */
  public static final int MAX_NODE_INDEX = 1023;
  /** Shortest cluster secret accepted, in UTF-8 bytes. */
  public static final int MIN_SECRET_BYTES = 16;

  @Option(names = "--store", paramLabel = "URI",
      description = "One node per process: the Redis all nodes share, e.g. redis://127.0.0.1:6379; the cluster"
          + " secret comes from the environment variable " + ChatServerCommand.SECRET_ENV + ".")
  String store;

  @Option(names = "--node-index", paramLabel = "I",
      description = "One node per process (with --store): this is node I, on session port --port + I; node 0"
          + " holds the mesh's one-of roles (chat: the room directory; game: the gateway) (default: 0).")
  Integer nodeIndex;

  @Option(names = "--mesh-host", defaultValue = "127.0.0.1", paramLabel = "HOST",
      description = "With --store: the address other nodes reach this node's mesh listener on (free port;"
          + " default: ${DEFAULT-VALUE}).")
  String meshHost = "127.0.0.1";

  /** The two Redis stores of one node, connected; the node closes them ({@code closeStoresOnClose()}). */
  public record Stores(RedisLocationStore locations, RedisRelocationStore relocations) {
  }

  /**
   * The Redis URI given with {@code --store}.
   *
   * @return it, or null without {@code --store} (then every node runs in this process).
   */
  public String store() {
    return store;
  }

  /**
   * This node's index.
   *
   * @return {@code --node-index}, 0 when not given.
   */
  public int index() {
    return nodeIndex == null ? 0 : nodeIndex;
  }

  /**
   * The address other nodes reach this node's mesh listener on.
   *
   * @return {@code --mesh-host}.
   */
  public String meshHost() {
    return meshHost;
  }

  /**
   * What is wrong with these options for a server on session port {@code port}, or null.
   *
   * @param port the command's {@code --port} (0..65535 checked by the caller).
   * @param env the environment holding the cluster secret.
   * @return the problem, one line naming the option and the fix; null when the options are fine.
   */
  public String problem(final int port, final Map<String, String> env) {
    if (store == null) {
      return nodeIndex == null ? null : "--node-index runs one node of a mesh whose nodes are separate"
          + " processes: it needs the store they share, --store redis://HOST:PORT";
    }
    if (!store.startsWith("redis://") && !store.startsWith("rediss://")) {
      return "--store " + store + " is not a Redis URI; e.g. redis://127.0.0.1:6379";
    }
    if (index() < 0 || index() > MAX_NODE_INDEX) {
      return "--node-index " + index() + " must be between 0 and " + MAX_NODE_INDEX;
    }
    if (port > 0 && port + index() > 65535) {
      return "--port " + port + " with --node-index " + index() + " needs port " + (port + index())
          + ", above 65535; use a lower --port, or 0 for a free port";
    }
    final String secret = env.get(ChatServerCommand.SECRET_ENV);
    if (secret == null || secret.getBytes(StandardCharsets.UTF_8).length < MIN_SECRET_BYTES) {
      return "one node per process needs the mesh's cluster secret, the same in every process, in the"
          + " environment variable " + ChatServerCommand.SECRET_ENV + " (at least " + MIN_SECRET_BYTES
          + " bytes; e.g. export " + ChatServerCommand.SECRET_ENV + "=$(openssl rand -hex 16))";
    }
    return null;
  }

  /**
   * The cluster secret, after {@link #problem} found nothing wrong.
   *
   * @param env the environment holding it.
   * @return its UTF-8 bytes.
   */
  public byte[] secret(final Map<String, String> env) {
    return env.get(ChatServerCommand.SECRET_ENV).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Connects both stores to {@code --store} under {@code prefix}; when the second cannot connect the first is closed
   * again.
   *
   * @param prefix the key prefix of this mesh.
   * @return the connected stores.
   * @throws dev.spotkit.store.StoreException when Redis cannot be used (unreachable, too old).
   * @throws IllegalArgumentException when the URI or prefix is malformed.
   */
  public Stores connect(final String prefix) {
    final RedisLocationStore locations = RedisLocationStore.connect(store, prefix);
    try {
      return new Stores(locations, RedisRelocationStore.connect(store, prefix));
    } catch (RuntimeException e) {
      locations.close();
      throw e;
    }
  }
}
