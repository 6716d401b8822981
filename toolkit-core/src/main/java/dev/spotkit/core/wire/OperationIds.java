package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.OperationId;

/**
 * Core's conversions between the public {@link dev.spotkit.core.OperationId} (the application's completion and
 * idempotency id, spec 000 section 4) and the wire {@link OperationId} (two u64, not both zero, FACTS.md "Wire"),
 * whose one implementation lives in toolkit-relocation. Both hold the same 128 bits.
 */
public final class OperationIds {

  private OperationIds() {
  }

  /**
   * The wire form.
   *
   * @param id the public id.
   * @return the same 128 bits as a wire value.
   */
  public static OperationId wire(final dev.spotkit.core.OperationId id) {
    return new OperationId(id.high(), id.low());
  }

  /**
   * The public form.
   *
   * @param id the wire value.
   * @return the same 128 bits as a public id.
   */
  public static dev.spotkit.core.OperationId api(final OperationId id) {
    return new dev.spotkit.core.OperationId(id.high(), id.low());
  }
}
