package dev.spotkit.examples.chat;

import dev.spotkit.core.MeshNode;
import dev.spotkit.core.session.LineCodec;
import dev.spotkit.store.InMemoryLocationStore;

/**
 * The chat server: one {@link MeshNode} whose client sessions speak the {@link ChatProtocol}.
 *
 * <ul>
 *   <li>{@link Lobby} is the Entry Spot, where each player starts.</li>
 *   <li>{@link Player} is the actor bound to each connection ({@code bindTo("player")}).</li>
 *   <li>{@link Room} is a SpotWide User Spot, created on first {@code /join} with GetOrCreate.</li>
 * </ul>
 *
 * <p>Bad input (unknown commands, lines over 8 KiB, invalid UTF-8) gets an {@code error: ...} line and never
 * stops the server. Single node, in-memory Location Store: nothing relocates, so every registration says
 * {@code disableRelocation()}.
 */
public final class ChatServer implements AutoCloseable {

  private final MeshNode node;

  private ChatServer(final MeshNode node) {
    this.node = node;
  }

  /**
   * Starts the node and its session listener.
   *
   * @param host address to listen on, e.g. 127.0.0.1.
   * @param port port to listen on; 0 picks a free one (see {@link #port()}).
   * @return the running server.
   */
  public static ChatServer start(final String host, final int port) {
    final RoomDirectory directory = new RoomDirectory();
    final MeshNode node = MeshNode.builder()
        .meshName("chat")
        .locationStore(new InMemoryLocationStore())
        .objectServer(server -> server
            .entrySpot(Lobby::new)
            .actor("player", ctx -> new Player(ctx, directory), actor -> actor.disableRelocation())
            .userSpot("room", ctx -> new Room(ctx, directory), spot -> spot.spotWide().disableRelocation()))
        .sessions(sessions -> sessions.listen(host, port).codec(LineCodec.utf8()).bindTo("player"))
        .start();
    return new ChatServer(node);
  }

  /**
   * The port clients connect to.
   *
   * @return the bound port (the chosen one when started with port 0).
   */
  public int port() {
    return node.sessionAddress().orElseThrow().getPort();
  }

  /**
   * The node, for tests that look at its spots.
   *
   * @return the running node.
   */
  MeshNode node() {
    return node;
  }

  /** Closes every session and stops the node. Idempotent. */
  @Override
  public void close() {
    node.close();
  }
}
