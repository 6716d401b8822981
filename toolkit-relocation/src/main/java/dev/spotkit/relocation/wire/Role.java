package dev.spotkit.relocation.wire;

/**
 * Which side sent a relocation body (senderRole of 30, 31, 34, 52, 53; initiatorRole of 40): one u8.
 */
public enum Role {
  /** 1: the source runtime. */
  SOURCE(1),
  /** 2: the target runtime. */
  TARGET(2);

  private final int wire;

  Role(final int wire) {
    this.wire = wire;
  }

  /**
   * The wire value.
   *
   * @return 1 or 2.
   */
  public int wireValue() {
    return wire;
  }

  static Role read(final WireIn in, final String field) {
    final int at = in.position();
    final int v = in.u8(field);
    for (Role r : values()) {
      if (r.wire == v) {
        return r;
      }
    }
    throw in.error(WireError.INVALID_FIELD, field, at, "value " + v, "1 (source) or 2 (target)");
  }
}
