package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A client that sends its lines and then shuts its output down ({@code printf ... | nc -N host port}) still gets
 * the replies to what it sent, the late ones (join confirmation, room echo) included, and then EOF.
 */
class HalfCloseTest {

  /** At most this many lines are read before EOF (the bound of the read loop). */
  private static final int MAX_LINES = 20;

  @Test
  void aHalfClosedClientGetsEveryReplyThenEofWithinBoundedTime() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0);
        Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
      socket.setSoTimeout(15_000); // a read that never ends fails the test instead of hanging it
      socket.getOutputStream().write("/nick alice\n/join r1\nhello after half-close\n"
          .getBytes(StandardCharsets.UTF_8));
      socket.getOutputStream().flush();
      final long shut = System.nanoTime();
      socket.shutdownOutput();

      final BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
          StandardCharsets.UTF_8));
      final List<String> lines = new ArrayList<>();
      boolean eof = false;
      for (int i = 0; i < MAX_LINES && !eof; i++) {
        final String line = readOrNull(in);
        if (line == null) {
          eof = true;
        } else {
          lines.add(line);
        }
      }
      final long eofMillis = (System.nanoTime() - shut) / 1_000_000;

      assertThat(lines).containsExactly("ok nick alice", "ok join r1", "[r1] alice: hello after half-close");
      assertThat(eof).as("the server closes after the replies").isTrue();
      assertThat(eofMillis).as("EOF within the drain bound (2 s default) plus slack").isLessThan(10_000);
    }
  }

  private static String readOrNull(final BufferedReader in) throws IOException {
    try {
      return in.readLine();
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no EOF: the server neither answered nor closed within 15 s", e);
    } catch (java.net.SocketException e) {
      return null; // reset by the server: no more lines
    }
  }
}
