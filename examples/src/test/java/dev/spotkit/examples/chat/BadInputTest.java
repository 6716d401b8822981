package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Bad input from one client gets error lines and never stops the server for the others. */
class BadInputTest {

  @Test
  void unknownCommandHugeLineAndInvalidUtf8GetErrorsAndTheServerKeepsServing() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0);
        LineClient ann = new LineClient(server.port());
        LineClient bad = new LineClient(server.port())) {
      ann.send("/nick ann");
      assertThat(ann.readLine()).isEqualTo("ok nick ann");
      ann.send("/join lobby");
      assertThat(ann.readLine()).isEqualTo("ok join lobby");

      bad.send("/bogus");
      assertThat(bad.readLine()).isEqualTo("error: unknown command /bogus; try " + ChatProtocol.HELP);
      bad.send("x".repeat(1024 * 1024));
      assertThat(bad.readLine()).isEqualTo("error: line of 1048576 bytes exceeds maxLineBytes 8192");
      bad.sendBytes(new byte[] {'h', 'i', (byte) 0xC3, (byte) 0x28, '\n'});
      assertThat(bad.readLine()).isEqualTo("error: invalid UTF-8 at byte 2 of a 4-byte line");
      bad.send("said outside a room");
      assertThat(bad.readLine()).startsWith("error: ");

      ann.send("still there?");
      assertThat(ann.readLine()).isEqualTo("[lobby] ann: still there?");
      bad.send("/nick bob");
      assertThat(bad.readLine()).isEqualTo("ok nick bob");
      bad.send("/join lobby");
      assertThat(bad.readLine()).isEqualTo("ok join lobby");
      bad.send("/who");
      assertThat(bad.readLine()).isEqualTo("who lobby: ann bob");

      try (LineClient late = new LineClient(server.port())) {
        late.send("/rooms");
        assertThat(late.readLine()).isEqualTo("rooms: lobby(2)");
      }
    }
  }

  @Test
  void errorLinesEchoAtMostFortyPrintableCharactersOfTheInput() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0);
        LineClient client = new LineClient(server.port())) {
      client.send("/nick \0" + "x".repeat(8000));
      assertThat(client.readLine()).isEqualTo("error: bad nick '?" + "x".repeat(39)
          + "...': use 1 to 32 of A-Z a-z 0-9 _ -");
      client.send("/join \u001b[2Jroom");
      assertThat(client.readLine()).isEqualTo("error: bad room '?[2Jroom': use 1 to 32 of A-Z a-z 0-9 _ -");
      client.send("/\u0007bell\u009b");
      assertThat(client.readLine()).isEqualTo("error: unknown command /?bell?; try " + ChatProtocol.HELP);
    }
  }

  @Test
  void controlCharactersInARoomLineAreRefusedToTheSenderAndNeverReachAnotherMember() throws Exception {
    try (ChatServer server = ChatServer.start("127.0.0.1", 0);
        LineClient ann = new LineClient(server.port());
        LineClient eve = new LineClient(server.port())) {
      ann.enter("ann", "r");
      eve.enter("eve", "r");

      final String rule = "; room lines may not contain control characters (C0 except TAB, DEL, C1) or lone"
          + " surrogates";
      eve.send("red \u001b[31mALERT\u001b[0m");
      assertThat(eve.readLine()).isEqualTo("error: line not sent: it contains control character U+001B at char 5"
          + rule);
      eve.sendBytes(new byte[] {'n', 'u', 'l', 0, 'x', '\n'});
      assertThat(eve.readLine()).isEqualTo("error: line not sent: it contains control character U+0000 at char 4"
          + rule);
      eve.sendBytes("fake\rann: I owe eve money\n".getBytes(StandardCharsets.UTF_8)); // a lone CR is data
      assertThat(eve.readLine()).isEqualTo("error: line not sent: it contains control character U+000D at char 5"
          + rule);
      eve.send("csi \u009b2J");
      assertThat(eve.readLine()).isEqualTo("error: line not sent: it contains control character U+009B at char 5"
          + rule);
      eve.send("/nick guest-1");
      assertThat(eve.readLine()).isEqualTo("error: bad nick 'guest-1': guest-<digits> is reserved for clients"
          + " without a nick; choose another");
      eve.send("tab\tis fine");
      assertThat(eve.readLine()).isEqualTo("[r] eve: tab\tis fine");

      // Everything ann got up to eve's clean line: only that line (the refused ones never came), no unsafe byte.
      final byte[] got = ann.readBytesThrough("[r] eve: tab\tis fine\n");
      assertThat(new String(got, StandardCharsets.UTF_8)).isEqualTo("[r] eve: tab\tis fine\n");
      for (byte b : got) {
        assertThat(b).as("no ESC, NUL, CR or C1 byte reaches another member")
            .isNotIn((byte) 0x1b, (byte) 0, (byte) '\r', (byte) 0xC2);
      }
    }
  }

  /** A blocking line client with a read timeout, so the test cannot hang. */
  static final class LineClient implements AutoCloseable {
    private final Socket socket = new Socket();
    private final BufferedReader in;
    private final OutputStream out;

    LineClient(final int port) throws IOException {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
      socket.setSoTimeout(10_000);
      in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      out = socket.getOutputStream();
    }

    void send(final String line) throws IOException {
      sendBytes((line + "\n").getBytes(StandardCharsets.UTF_8));
    }

    void sendBytes(final byte[] bytes) throws IOException {
      out.write(bytes);
      out.flush();
    }

    String readLine() throws IOException {
      return in.readLine();
    }

    /** Sends {@code /nick nick} and {@code /join room} and asserts their two confirmations. */
    void enter(final String nick, final String room) throws IOException {
      send("/nick " + nick);
      assertThat(readLine()).isEqualTo("ok nick " + nick);
      send("/join " + room);
      assertThat(readLine()).isEqualTo("ok join " + room);
    }

    /** Closes with a TCP reset instead of a FIN (SO_LINGER 0). */
    void reset() throws IOException {
      socket.setSoLinger(true, 0);
      socket.close();
    }

    /**
     * Raw bytes up to and including the first occurrence of {@code end} (UTF-8), at most 64 KiB, read past the
     * line reader: only when nothing arrived after the last line {@link #readLine} returned (it buffers).
     */
    byte[] readBytesThrough(final String end) throws IOException {
      final byte[] marker = end.getBytes(StandardCharsets.UTF_8);
      final java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
      final java.io.InputStream raw = socket.getInputStream();
      for (int i = 0; i < 64 * 1024; i++) {
        final int b = raw.read();
        if (b < 0) {
          break;
        }
        got.write(b);
        final byte[] now = got.toByteArray();
        if (now.length >= marker.length && java.util.Arrays.equals(now, now.length - marker.length, now.length,
            marker, 0, marker.length)) {
          return now;
        }
      }
      throw new AssertionError("no '" + end.strip() + "' in " + got.size() + " bytes: " + got);
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
