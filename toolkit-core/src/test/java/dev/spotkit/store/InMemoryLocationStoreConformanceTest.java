package dev.spotkit.store;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** The conformance suite on {@link InMemoryLocationStore}, with a clock the tests move. */
class InMemoryLocationStoreConformanceTest extends LocationStoreConformance {
  private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);

  @Override
  protected LocationStore newStore() {
    return new InMemoryLocationStore(() -> Instant.ofEpochMilli(millis.get()), Duration.ofSeconds(60));
  }

  @Override
  protected boolean advanceStoreTime(final Duration by) {
    millis.addAndGet(by.toMillis());
    return true;
  }
}
