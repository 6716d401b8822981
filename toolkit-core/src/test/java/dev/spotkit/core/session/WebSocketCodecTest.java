package dev.spotkit.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WebSocketCodec} over loopback (127.0.0.1, a free port) with the JDK's {@code java.net.http.WebSocket}
 * client against a {@link SessionServer} whose handler echoes: {@code many N} pushes N numbered messages, anything
 * else comes back as {@code echo TEXT}, {@code bye} closes the session from the server. Every wait is bounded.
 */
class WebSocketCodecTest {

  private static final long WAIT_SECONDS = 10;
  private static final int MAX = 1024;
  private static final String PAGE = "<!doctype html><title>t</title><p id=x>héllo</p>";

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final BlockingQueue<String> closed = new LinkedBlockingQueue<>();
  private final HttpClient http = HttpClient.newHttpClient();
  private SessionServer server;

  @AfterEach
  void closeAll() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
    http.close();
  }

  private void start(final FrameCodec codec) throws IOException {
    start(SessionServerConfig.builder().port(0).codec(codec));
  }

  private void start(final SessionServerConfig.Builder config) throws IOException {
    server = SessionServer.start(config.build(), session ->
        new SessionInbound() {
          @Override
          public void onFrame(final Object frame) {
            final String text = (String) frame;
            if (text.startsWith("many ")) {
              for (int i = 0; i < Integer.parseInt(text.substring(5)); i++) {
                session.push("m" + i);
              }
            } else if (text.equals("bye")) {
              session.close("bye from the server");
            } else {
              session.push("echo " + text);
            }
          }

          @Override
          public void onClosed() {
            closed.add("closed " + session.id());
          }
        });
    toClose.add(server);
  }

  private Peer connect() throws Exception {
    final Peer peer = new Peer();
    final WebSocket ws = http.newWebSocketBuilder()
        .buildAsync(URI.create("ws://127.0.0.1:" + server.localAddress().getPort() + "/ws"), peer)
        .get(WAIT_SECONDS, TimeUnit.SECONDS);
    peer.ws = ws;
    toClose.add(() -> ws.abort());
    return peer;
  }

  @Test
  void textFramesInPushesOutInOrderAndCloseEndsTheSessionOnce() throws Exception {
    start(WebSocketCodec.text("/ws", MAX));
    final Peer peer = connect();
    peer.send("hello");
    assertThat(peer.next()).isEqualTo("echo hello");
    peer.send("ünïcode ✓");
    assertThat(peer.next()).isEqualTo("echo ünïcode ✓");
    peer.send("many 500");
    for (int i = 0; i < 500; i++) {
      assertThat(peer.next()).isEqualTo("m" + i);
    }
    assertThat(server.sessionCount()).isEqualTo(1);
    peer.ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(closed.poll(WAIT_SECONDS, TimeUnit.SECONDS)).startsWith("closed ");
    assertThat(peer.closeCode.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
    assertThat(closed.poll(200, TimeUnit.MILLISECONDS)).as("onClosed exactly once").isNull();
  }

  @Test
  void fragmentedTextIsOneMessage() throws Exception {
    start(WebSocketCodec.text("/ws", MAX));
    final Peer peer = connect();
    peer.ws.sendText("part one, ", false).get(WAIT_SECONDS, TimeUnit.SECONDS);
    peer.ws.sendText("part two", true).get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(peer.next()).isEqualTo("echo part one, part two");
  }

  @Test
  void binaryAndOversizedFragmentedMessagesGetAnErrorAndTheSessionGoesOn() throws Exception {
    start(WebSocketCodec.text("/ws", MAX));
    final Peer peer = connect();
    peer.send("before");
    peer.ws.sendBinary(ByteBuffer.wrap(new byte[] {1, 2, 3}), true).get(WAIT_SECONDS, TimeUnit.SECONDS);
    peer.send("between");
    peer.ws.sendText("x".repeat(MAX - 10), false).get(WAIT_SECONDS, TimeUnit.SECONDS);
    peer.ws.sendText("y".repeat(MAX), false).get(WAIT_SECONDS, TimeUnit.SECONDS);
    peer.ws.sendText("z", true).get(WAIT_SECONDS, TimeUnit.SECONDS);
    peer.send("after");
    assertThat(peer.next()).isEqualTo("echo before");
    assertThat(peer.next()).isEqualTo("error: binary frame of 3 bytes; this session takes text frames only");
    assertThat(peer.next()).isEqualTo("echo between");
    assertThat(peer.next()).startsWith("error: fragmented message exceeds maxMessageBytes");
    assertThat(peer.next()).isEqualTo("echo after");
  }

  @Test
  void pingsAreAnsweredWithPongs() throws Exception {
    start(WebSocketCodec.text("/ws", MAX));
    final Peer peer = connect();
    peer.ws.sendPing(ByteBuffer.wrap("are you there".getBytes(StandardCharsets.UTF_8)))
        .get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(peer.pongs.poll(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo("are you there");
    peer.send("still here");
    assertThat(peer.next()).isEqualTo("echo still here");
  }

  @Test
  void closeOnBadFrameSendsTheErrorThenCloses() throws Exception {
    start(SessionServerConfig.builder().port(0).codec(WebSocketCodec.text("/ws", MAX)).closeOnBadFrame(true));
    final Peer peer = connect();
    peer.ws.sendBinary(ByteBuffer.wrap(new byte[] {7}), true).get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(peer.next()).isEqualTo("error: binary frame of 1 bytes; this session takes text frames only");
    assertThat(peer.closeCode.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
    assertThat(closed.poll(WAIT_SECONDS, TimeUnit.SECONDS)).startsWith("closed ");
  }

  @Test
  void aSingleFrameOverTheLimitEndsTheConnectionWith1009() throws Exception {
    start(WebSocketCodec.text("/ws", MAX));
    final Peer peer = connect();
    peer.send("x".repeat(MAX + 1));
    assertThat(peer.closeCode.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(1009);
    assertThat(closed.poll(WAIT_SECONDS, TimeUnit.SECONDS)).startsWith("closed ");
  }

  @Test
  void aServerCloseSendsTheReasonThenACloseFrame() throws Exception {
    start(WebSocketCodec.text("/ws", MAX));
    final Peer peer = connect();
    peer.send("bye");
    assertThat(peer.next()).isEqualTo("error: bye from the server");
    assertThat(peer.closeCode.get(WAIT_SECONDS, TimeUnit.SECONDS)).isEqualTo(WebSocket.NORMAL_CLOSURE);
    assertThat(closed.poll(WAIT_SECONDS, TimeUnit.SECONDS)).startsWith("closed ");
  }

  @Test
  void plainHttpGetsThePageOr404AndNeverASession() throws Exception {
    start(WebSocketCodec.text("/ws", MAX).withPage(PAGE));
    final String base = "http://127.0.0.1:" + server.localAddress().getPort();
    final HttpResponse<String> page = http.send(HttpRequest.newBuilder(URI.create(base + "/"))
        .timeout(Duration.ofSeconds(WAIT_SECONDS)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
    assertThat(page.body()).isEqualTo(PAGE);
    final HttpResponse<String> other = http.send(HttpRequest.newBuilder(URI.create(base + "/nope"))
        .timeout(Duration.ofSeconds(WAIT_SECONDS)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(other.statusCode()).isEqualTo(404);
    try (Socket socket = new Socket("127.0.0.1", server.localAddress().getPort())) {
      socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
      final OutputStream out = socket.getOutputStream();
      out.write("hello, not http\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      final InputStream in = socket.getInputStream();
      final String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      assertThat(answer).startsWith("HTTP/1.1 400");
    }
    assertThat(server.sessionCount()).isZero();
    assertThat(closed).isEmpty();
  }

  @Test
  void withoutAPageRootIs404() throws Exception {
    start(WebSocketCodec.text("/ws"));
    final HttpResponse<String> root = http.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + server.localAddress().getPort() + "/"))
        .timeout(Duration.ofSeconds(WAIT_SECONDS)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(root.statusCode()).isEqualTo(404);
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> WebSocketCodec.text("ws")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must start with '/'");
    assertThatThrownBy(() -> WebSocketCodec.text("/ws", 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxMessageBytes 0");
    assertThat(WebSocketCodec.text("/ws").maxMessageBytes()).isEqualTo(WebSocketCodec.DEFAULT_MAX_MESSAGE_BYTES);
  }

  /** A JDK WebSocket listener collecting whole text messages and the close code; requests one message at a time. */
  private static final class Peer implements WebSocket.Listener {
    private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> pongs = new LinkedBlockingQueue<>();
    private final CompletableFuture<Integer> closeCode = new CompletableFuture<>();
    private final StringBuilder partial = new StringBuilder();
    private volatile WebSocket ws;

    void send(final String text) throws Exception {
      ws.sendText(text, true).get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    String next() throws InterruptedException {
      final String message = messages.poll(WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(message).as("a message within %d s", WAIT_SECONDS).isNotNull();
      return message;
    }

    @Override
    public CompletionStage<?> onText(final WebSocket webSocket, final CharSequence data, final boolean last) {
      partial.append(data);
      if (last) {
        messages.add(partial.toString());
        partial.setLength(0);
      }
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onPong(final WebSocket webSocket, final ByteBuffer message) {
      pongs.add(StandardCharsets.UTF_8.decode(message).toString());
      webSocket.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(final WebSocket webSocket, final int statusCode, final String reason) {
      closeCode.complete(statusCode);
      return null;
    }

    @Override
    public void onError(final WebSocket webSocket, final Throwable error) {
      closeCode.completeExceptionally(error);
    }
  }
}
