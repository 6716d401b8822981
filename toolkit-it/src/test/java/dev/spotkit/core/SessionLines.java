package dev.spotkit.core;

import java.io.BufferedReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Line-protocol client steps shared by the session tests: one line out, pushed lines in. */
final class SessionLines {
  private SessionLines() {
  }

  /** Writes {@code line} and a newline as UTF-8 and flushes. */
  static void write(final OutputStream out, final String line) throws Exception {
    out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /**
   * Reads pushed lines until {@code last} arrived (bounded by the socket timeout and 10,000 lines); stops without it
   * at the end of the stream or on a read timeout, so the assertions on what arrived say what is missing.
   */
  static List<String> readUntil(final BufferedReader in, final String last) throws Exception {
    final List<String> lines = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      final String line;
      try {
        line = in.readLine();
      } catch (java.net.SocketTimeoutException e) {
        break;
      }
      if (line == null) {
        break;
      }
      lines.add(line);
      if (line.equals(last)) {
        break;
      }
    }
    return lines;
  }
}
