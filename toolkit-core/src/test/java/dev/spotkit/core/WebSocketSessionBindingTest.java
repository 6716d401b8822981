package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.session.LineCodec;
import dev.spotkit.core.session.WebSocketCodec;
import dev.spotkit.store.InMemoryLocationStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionOptions#alsoListen}: one node with a line listener and a WebSocket listener bound to the same actor
 * type; a WebSocket client and a line client each get their own actor, and the WebSocket one disconnects once.
 */
class WebSocketSessionBindingTest {

  private static final long WAIT_SECONDS = 10;

  final List<String> events = new CopyOnWriteArrayList<>();
  MeshNode node;

  final class Player implements Actor {
    private final ActorContext ctx;

    Player(final ActorContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, line -> ctx.session().ifPresent(s -> s.push("echo " + ctx.self().id() + " " + line)));
    }
  }

  final class Lobby implements EntrySpot {
    private final EntrySpotContext ctx;

    Lobby(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public CreateDecision onCreateActor(final ActorCreation creation) {
      events.add("create " + creation.stableType());
      return CreateDecision.approve();
    }

    @Override
    public void onDisconnectActor(final ActorRef actor) {
      events.add("disconnect");
    }
  }

  @AfterEach
  void close() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void lineAndWebSocketClientsGetActorsOfTheBoundType() throws Exception {
    node = MeshNode.builder().meshName("ws").locationStore(new InMemoryLocationStore()).workers(2)
        .objectServer(s -> s.entrySpot(Lobby::new).actor("player", Player::new, a -> a.disableRelocation()))
        .sessions(s -> s.listen(0).codec(LineCodec.utf8()).bindTo("player")
            .alsoListen("127.0.0.1", 0, WebSocketCodec.text("/ws")))
        .start();
    final List<InetSocketAddress> addresses = node.sessionAddresses();
    assertThat(addresses).hasSize(2);
    assertThat(addresses.get(0)).isEqualTo(node.sessionAddress().orElseThrow());

    final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    try (HttpClient http = HttpClient.newHttpClient()) {
      final WebSocket ws = http.newWebSocketBuilder().buildAsync(
          URI.create("ws://127.0.0.1:" + addresses.get(1).getPort() + "/ws"), new WebSocket.Listener() {
            @Override
            public CompletionStage<?> onText(final WebSocket webSocket, final CharSequence data, final boolean last) {
              received.add(data.toString());
              webSocket.request(1);
              return null;
            }
          }).get(WAIT_SECONDS, TimeUnit.SECONDS);
      ws.sendText("from the browser", true).get(WAIT_SECONDS, TimeUnit.SECONDS);
      final String wsEcho = received.poll(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(wsEcho).startsWith("echo ").endsWith(" from the browser");

      try (Socket socket = new Socket("127.0.0.1", addresses.get(0).getPort())) {
        socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        socket.getOutputStream().write("from nc\n".getBytes(StandardCharsets.UTF_8));
        final String lineEcho = new BufferedReader(new InputStreamReader(socket.getInputStream(),
            StandardCharsets.UTF_8)).readLine();
        assertThat(lineEcho).startsWith("echo ").endsWith(" from nc");
        assertThat(lineEcho.split(" ")[1]).as("another actor").isNotEqualTo(wsEcho.split(" ")[1]);
      }
      ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
    await().atMost(Duration.ofSeconds(WAIT_SECONDS)).until(() -> events.size() == 4);
    assertThat(events).containsExactlyInAnyOrder("create player", "create player", "disconnect", "disconnect");
  }
}
