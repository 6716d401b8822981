package dev.spotkit.relocation.wire;

/** Reads and writes the {@link ObjectIdentity} union; layout in that type's Javadoc. */
final class ObjectIdentityCodec {

  private ObjectIdentityCodec() {
  }

  /**
   * Writes the union.
   *
   * @param object the object.
   * @param out the writer.
   */
  private static void write(final ObjectIdentity object, final WireOut out) {
    out.u8(object.kind());
    final int lengthAt = out.position();
    out.u16(0);
    final int start = out.position();
    if (object instanceof ObjectIdentity.InstanceSpot s) {
      out.text8(s.stableType());
    }
    out.text8(object.id());
    out.u64(object.objectGeneration());
    out.u64(object.expectedAuthorityOwnerGeneration());
    out.patchU16(lengthAt, out.position() - start);
  }

  /** Package entry for encoders. */
  static void writeTo(final ObjectIdentity object, final WireOut out) {
    write(object, out);
  }

  /** Package entry for decoders. */
  static ObjectIdentity read(final WireIn in, final String f) {
    final int kindAt = in.position();
    final int kind = in.u8(f + ".objectKind");
    if (kind < 1 || kind > 3) {
      throw in.error(WireError.INVALID_FIELD, f + ".objectKind", kindAt, "value " + kind,
          "1 (actor), 2 (user spot) or 3 (instance spot)");
    }
    final int lengthAt = in.position();
    final int length = in.u16(f + ".length");
    final int start = in.position();
    final String type = kind == 3 ? in.text8(f + ".stableType") : null;
    final String id = in.text8(f + ".id");
    final long generation = in.nonZeroU64(f + ".objectGeneration");
    final long expected = in.nonZeroU64(f + ".expectedAuthorityOwnerGeneration");
    in.endSection(f + ".length", lengthAt, start, length, WireError.INVALID_FIELD);
    return switch (kind) {
      case 1 -> new ObjectIdentity.Actor(id, generation, expected);
      case 2 -> new ObjectIdentity.UserSpot(id, generation, expected);
      default -> new ObjectIdentity.InstanceSpot(type, id, generation, expected);
    };
  }
}
