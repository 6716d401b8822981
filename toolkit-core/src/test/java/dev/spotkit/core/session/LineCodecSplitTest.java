package dev.spotkit.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * However the bytes are split across reads, {@link LineCodec} yields the same frames: each line decoded,
 * each over-long line reported once with its length, in order. Seeded: a failure prints its seed.
 */
class LineCodecSplitTest {

  private static final int MAX = 24;
  private static final String[] PIECES = {"a", "z", " ", "é", "€", "😀", "\r"};

  @Test
  void framesDoNotDependOnHowTheBytesAreSplit() {
    final long baseSeed = 0x5EED_C0DECL;
    for (int round = 0; round < 500; round++) {
      final long seed = baseSeed + round;
      final SplittableRandom random = new SplittableRandom(seed);
      final List<String> lines = randomLines(random);
      final int chunk = 1 + random.nextInt(64);
      final boolean crlf = random.nextBoolean();
      assertThat(decode(lines, chunk, crlf)).as("seed %d, chunk %d, crlf %s", seed, chunk, crlf)
          .containsExactlyElementsOf(expected(lines));
    }
  }

  private static List<String> randomLines(final SplittableRandom random) {
    final List<String> lines = new ArrayList<>();
    final int count = random.nextInt(30);
    for (int i = 0; i < count; i++) {
      final StringBuilder line = new StringBuilder();
      final int pieces = random.nextInt(MAX + 6);
      for (int p = 0; p < pieces; p++) {
        line.append(PIECES[random.nextInt(PIECES.length)]);
      }
      while (line.length() > 0 && line.charAt(line.length() - 1) == '\r') {
        line.setLength(line.length() - 1); // trailing CRs would be read as part of a CRLF
      }
      lines.add(line.toString());
    }
    return lines;
  }

  private static List<String> expected(final List<String> lines) {
    final List<String> expected = new ArrayList<>();
    for (String line : lines) {
      final int bytes = line.getBytes(StandardCharsets.UTF_8).length;
      expected.add(bytes > MAX ? "error: line of " + bytes + " bytes exceeds maxLineBytes " + MAX : line);
    }
    return expected;
  }

  private static List<String> decode(final List<String> lines, final int chunk, final boolean crlf) {
    final ByteArrayOutputStream wire = new ByteArrayOutputStream();
    for (String line : lines) {
      wire.writeBytes(line.getBytes(StandardCharsets.UTF_8));
      wire.writeBytes(crlf ? new byte[] {'\r', '\n'} : new byte[] {'\n'});
    }
    final byte[] all = wire.toByteArray();
    final LineCodec codec = LineCodec.utf8(MAX);
    final EmbeddedChannel channel = new EmbeddedChannel();
    codec.install(channel.pipeline());
    for (int from = 0; from < all.length; from += chunk) {
      channel.writeInbound(Unpooled.copiedBuffer(all, from, Math.min(chunk, all.length - from)));
    }
    final List<String> actual = new ArrayList<>();
    for (int i = 0; i <= lines.size(); i++) { // bounded: one message per line, then null
      final Object msg = channel.readInbound();
      if (msg == null) {
        break;
      }
      actual.add(msg instanceof BadFrame bad ? (String) codec.errorReply(bad.error()) : (String) msg);
    }
    assertThat(channel.finishAndReleaseAll()).isFalse();
    return actual;
  }
}
