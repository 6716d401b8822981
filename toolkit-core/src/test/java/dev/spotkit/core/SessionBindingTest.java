package dev.spotkit.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.session.LineCodec;
import dev.spotkit.store.InMemoryLocationStore;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Client sessions bound to actors created through the Entry Spot (notes/session-boundary.md). */
class SessionBindingTest {

  final List<String> events = new CopyOnWriteArrayList<>();
  final AtomicBoolean decline = new AtomicBoolean();
  /** Models a slow first handler turn (a model of work, not synchronisation): the client's FIN lands meanwhile. */
  final AtomicBoolean slowFirstLine = new AtomicBoolean();
  final List<ActorContext> contexts = new CopyOnWriteArrayList<>();
  MeshNode node;

  final class Player implements Actor {
    private final ActorContext ctx;
    private int lines;

    Player(final ActorContext ctx) {
      this.ctx = ctx;
      contexts.add(ctx);
    }

    @Override
    public void configure(final ActorHandlers on) {
      on.message(String.class, line -> {
        if (lines == 0 && slowFirstLine.get()) {
          Thread.sleep(300);
        }
        lines++;
        ctx.session().ifPresent(s -> s.push("echo " + lines + " " + line));
      });
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
      return decline.get() ? CreateDecision.decline() : CreateDecision.approve();
    }

    @Override
    public void onDisconnectActor(final ActorRef actor) {
      events.add("disconnect " + actor.id());
    }
  }

  private MeshNode start() {
    node = MeshNode.builder().meshName("chat").locationStore(new InMemoryLocationStore()).workers(2)
        .objectServer(s -> s.entrySpot(Lobby::new).actor("player", Player::new, a -> a.disableRelocation()))
        .sessions(s -> s.listen(0).codec(LineCodec.utf8()).bindTo("player"))
        .start();
    return node;
  }

  @AfterEach
  void close() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void eachConnectionGetsAnActorThatReceivesFramesAndPushesBack() throws Exception {
    final InetSocketAddress address = start().sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(5000);
      final OutputStream out = socket.getOutputStream();
      out.write("hello\nworld\n".getBytes(StandardCharsets.UTF_8));
      out.flush();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      assertThat(in.readLine()).isEqualTo("echo 1 hello");
      assertThat(in.readLine()).isEqualTo("echo 2 world");
      assertThat(events).containsExactly("create player");
      assertThat(contexts).hasSize(1);
      assertThat(contexts.get(0).session()).isPresent();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> events.size() == 2);
    final ActorRef actor = contexts.get(0).self();
    assertThat(events).containsExactly("create player", "disconnect " + actor.id());
    assertThat(contexts.get(0).session()).isEmpty();
    // Disconnect is not destroy: the actor lives until the application destroys it.
    assertThat(node.actors().find(actor.id().value())).contains(actor);
    await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(2)).until(() -> events.size() == 2);
  }

  @Test
  void aClientThatHalfClosesStillGetsTheRepliesToEveryLineItSent() throws Exception {
    // `printf 'a\nb\n' | nc -N host port`: the client shuts its output down after the last line and reads on.
    slowFirstLine.set(true);
    final InetSocketAddress address = start().sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(5000);
      final StringBuilder lines = new StringBuilder();
      for (int i = 0; i < 200; i++) {
        lines.append("line").append(i).append('\n');
      }
      socket.getOutputStream().write(lines.toString().getBytes(StandardCharsets.UTF_8));
      socket.shutdownOutput();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      for (int i = 0; i < 200; i++) {
        assertThat(in.readLine()).isEqualTo("echo " + (i + 1) + " line" + i);
      }
      assertThat(in.readLine()).as("the server closes once every line was handled").isNull();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> events.size() == 2); // create, then disconnect once
  }

  @Test
  void theErrorReplyToABadLineComesAfterTheRepliesToTheLinesBeforeIt() throws Exception {
    slowFirstLine.set(true); // the first line's reply is still being made when the bad line is decoded
    final InetSocketAddress address = start().sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(5000);
      final OutputStream out = socket.getOutputStream();
      out.write("first\n".getBytes(StandardCharsets.UTF_8));
      out.write(new byte[] {(byte) 0xff, '\n'});
      out.write("third\n".getBytes(StandardCharsets.UTF_8));
      out.flush();
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      assertThat(in.readLine()).isEqualTo("echo 1 first");
      assertThat(in.readLine()).startsWith("error: ").contains("UTF-8");
      assertThat(in.readLine()).isEqualTo("echo 2 third");
    }
  }

  @Test
  void aDeclinedCreationClosesTheSession() throws Exception {
    decline.set(true);
    final InetSocketAddress address = start().sessionAddress().orElseThrow();
    try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
      socket.setSoTimeout(5000);
      socket.getOutputStream().write("hello\n".getBytes(StandardCharsets.UTF_8));
      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      assertThat(in.readLine()).isNull(); // closed by the server, nothing echoed
    }
    assertThat(events).containsExactly("create player");
  }

  @Test
  void sessionsNeedARegisteredActorType() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> MeshNode.builder()
        .locationStore(new InMemoryLocationStore())
        .objectServer(s -> s.entrySpot(Lobby::new))
        .sessions(s -> s.listen(0).bindTo("ghost")).start())
        .isInstanceOf(SpotkitException.NotConfigured.class)
        .hasMessageStartingWith("sessions are bound to actor type 'ghost'");
  }
}
