package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.StoreLimits;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Store keys reach logs and exception messages only in a printable form (no raw 0x00 separators). */
class PrintableKeysTest {

  @Test
  void storeCallFailuresNameTheirKeysWithoutRawControlBytes() {
    final String raw = LocationKeys.meshNode("chat", "5d436e812ce53081").preimage();
    assertThat(raw).contains("\0");
    final Throwable failed = catchThrowable(() -> StoreCalls.await(CompletableFuture.failedFuture(
        new StoreException.Unavailable("redis is down", null)), Duration.ofSeconds(1), "read of descriptor " + raw));
    assertThat(failed).isInstanceOf(SpotkitException.Unavailable.class);
    assertThat(failed.getMessage()).doesNotContain("\0").contains("mesh-node\\0chat\\05d436e812ce53081");
    final Throwable late = catchThrowable(() -> StoreCalls.await(new CompletableFuture<>(), Duration.ofMillis(1),
        "write of " + raw));
    assertThat(late.getMessage()).doesNotContain("\0").contains("mesh-node\\0chat");
  }

  @Test
  void logicalKeysAndFreeTextUseTheOneEscape() {
    final LogicalKey key = LocationKeys.nodeCapacity("chat", "72d05517ecf7f921");
    assertThat(key.toString()).isEqualTo(StoreLimits.escape(key.preimage())).doesNotContain("\0");
    assertThat(StoreLimits.escape("a\0b\u0001c\u007f")).isEqualTo("a\\0b\\u0001c\\u007f");
    final String clean = "already printable";
    assertThat(StoreLimits.escape(clean)).isSameAs(clean);
  }
}
