package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The raw Netty baseline answers the chat protocol as the Spotkit chat server does. */
class RawChatServerTest {

  @Test
  void itSpeaksTheChatProtocol() throws Exception {
    speaksTheChatProtocol(false);
  }

  @Test
  void itSpeaksTheChatProtocolWithConsolidatedFlushes() throws Exception {
    speaksTheChatProtocol(true);
  }

  private static void speaksTheChatProtocol(final boolean consolidateFlushes) throws Exception {
    try (RawChatServer server = RawChatServer.start("127.0.0.1", 0, consolidateFlushes);
        Socket ann = connect(server.port());
        Socket bob = connect(server.port())) {
      final BufferedReader annIn = reader(ann);
      final BufferedReader bobIn = reader(bob);
      say(ann, "/nick ann");
      assertThat(annIn.readLine()).isEqualTo("ok nick ann");
      say(ann, "/join lobby");
      assertThat(annIn.readLine()).isEqualTo("ok join lobby");
      say(bob, "/nick guest-7");
      assertThat(bobIn.readLine()).startsWith("error: bad nick 'guest-7'");
      say(bob, "/nick bob");
      assertThat(bobIn.readLine()).isEqualTo("ok nick bob");
      say(bob, "/join lobby");
      assertThat(bobIn.readLine()).isEqualTo("ok join lobby");
      say(bob, "hello\r"); // CRLF
      assertThat(bobIn.readLine()).isEqualTo("[lobby] bob: hello");
      assertThat(annIn.readLine()).isEqualTo("[lobby] bob: hello");
      say(ann, "/who");
      assertThat(annIn.readLine()).as("members in no particular order")
          .isIn("who lobby: ann bob", "who lobby: bob ann");
      say(ann, "/rooms");
      assertThat(annIn.readLine()).isEqualTo("rooms: lobby(2)");
      say(ann, "bell\u0007");
      assertThat(annIn.readLine()).startsWith(ChatProtocol.LINE_REFUSED + "control character U+0007");
      say(ann, "/frobnicate");
      assertThat(annIn.readLine()).isEqualTo("error: unknown command /frobnicate; try " + ChatProtocol.HELP);
      say(ann, "/leave");
      assertThat(annIn.readLine()).isEqualTo("ok leave lobby");
      say(ann, "/rooms");
      assertThat(annIn.readLine()).isEqualTo("rooms: lobby(1)");
    }
  }

  @Test
  void aPortInUseIsAnUncheckedIoErrorNamingTheAddress() {
    try (RawChatServer first = RawChatServer.start("127.0.0.1", 0)) {
      assertThatThrownBy(() -> RawChatServer.start("127.0.0.1", first.port()))
          .isInstanceOf(UncheckedIOException.class).hasMessageContaining("127.0.0.1:" + first.port());
    }
  }

  private static Socket connect(final int port) throws Exception {
    final Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    socket.setSoTimeout(15_000); // a missing line fails the test instead of hanging it
    return socket;
  }

  private static BufferedReader reader(final Socket socket) throws Exception {
    return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
  }

  private static void say(final Socket socket, final String line) throws Exception {
    final OutputStream out = socket.getOutputStream();
    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
