package dev.spotkit.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** A session's inbound count turns auto-read off at the high-water mark and on at the low-water mark. */
class InboundFlowControlTest {

  @Test
  void readingStopsAtTheHighWaterMarkAndResumesOnlyAtTheLowWaterMark() {
    final EmbeddedChannel channel = new EmbeddedChannel();
    final NettySession session = new NettySession(channel,
        SessionServerConfig.builder().inboundWaterMarks(2, 5).build());
    for (int i = 0; i < 4; i++) {
      session.frameQueued();
    }
    assertThat(channel.config().isAutoRead()).isTrue(); // 4 < 5
    session.frameQueued();
    assertThat(channel.config().isAutoRead()).isFalse(); // 5: stop reading
    session.frameQueued(); // frames of the read in progress still count
    assertThat(session.pendingFrames()).isEqualTo(6);
    for (int i = 0; i < 3; i++) {
      session.frameHandled();
    }
    assertThat(channel.config().isAutoRead()).isFalse(); // 3 > 2: still off (no flapping at the high mark)
    session.frameHandled();
    assertThat(channel.config().isAutoRead()).isTrue(); // 2: read again
    session.frameQueued();
    session.frameQueued();
    assertThat(channel.config().isAutoRead()).isTrue(); // 4 < 5
    assertThat(session.pendingFrames()).isEqualTo(4);
    channel.finishAndReleaseAll();
  }
}
