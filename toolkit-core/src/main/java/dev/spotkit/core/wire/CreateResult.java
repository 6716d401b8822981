package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.WireError;
import dev.spotkit.relocation.wire.WireIn;

/** {@code user-spot-create-result} / {@code actor-create-result}: how a remote create ended, a u8. */
public enum CreateResult {
  /** Another operation created it; this one found it Ready (GetOrCreate). */
  EXISTING(1),
  /** This operation created it. */
  CREATED(2),
  /** The creation callback declined. */
  REJECTED(3);

  private final int wire;

  CreateResult(final int wire) {
    this.wire = wire;
  }

  /**
   * The wire value.
   *
   * @return 1, 2 or 3.
   */
  public int wireValue() {
    return wire;
  }

  static CreateResult read(final WireIn in, final String field) {
    final int at = in.position();
    final int v = in.u8(field);
    if (v < 1 || v > 3) {
      throw in.error(WireError.INVALID_FIELD, field, at, "value " + v, "1..3");
    }
    return values()[v - 1];
  }
}
