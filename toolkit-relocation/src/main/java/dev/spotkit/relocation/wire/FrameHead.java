package dev.spotkit.relocation.wire;

/**
 * The framework frame head shared by every codec of this package (FACTS.md "Wire"):
 * {@code 5A 4D 01 <command> <flags>}, five bytes. Relocation and session-relocation commands allow no flags: an
 * undefined bit is {@link RelocationWireError#UNDEFINED_FLAG}, a defined one (0x01 metadata, 0x02 bound
 * session, 0x04 source spot id, 0x08 extension) {@link RelocationWireError#FORBIDDEN_FLAG}.
 */
final class FrameHead {

  /** Length of the head in bytes. */
  static final int LENGTH = 5;

  private FrameHead() {
  }

  /** Writes {@code 5A 4D 01 <command> 00}. */
  static void write(final WireOut out, final int command) {
    out.u8(0x5A);
    out.u8(0x4D);
    out.u8(1);
    out.u8(command);
    out.u8(0);
  }

  /**
   * Reads and checks the head; on return the reader stands at the first body byte.
   *
   * @param in the reader at offset 0.
   * @param known whether byte 3 (already peeked by the caller) is a command this codec decodes.
   * @param expectedCommands the commands this codec decodes, for the error message, e.g. {@code "42, 43 or 44"}.
   * @throws RelocationWireException bad-magic, unsupported-version, unexpected-command, undefined-flag,
   *     forbidden-flag or truncated-field.
   */
  static void read(final WireIn in, final boolean known, final String expectedCommands) {
    final int m0 = in.u8("magic");
    final int m1 = in.u8("magic");
    if (m0 != 0x5A || m1 != 0x4D) {
      throw in.error(RelocationWireError.BAD_MAGIC, "magic", 0, String.format("%02x%02x", m0, m1), "5a4d");
    }
    final int major = in.u8("wireMajor");
    if (major != 1) {
      throw in.error(RelocationWireError.UNSUPPORTED_VERSION, "wireMajor", 2, "value " + major, "1");
    }
    final int command = in.u8("commandId");
    if (!known) {
      throw in.error(RelocationWireError.UNEXPECTED_COMMAND, "commandId", 3, "value " + command, expectedCommands);
    }
    final int flags = in.u8("flags");
    if ((flags & ~0x0F) != 0) {
      throw in.error(RelocationWireError.UNDEFINED_FLAG, "flags", 4, String.format("0x%02x", flags),
          "bits of 0x0f");
    }
    if (flags != 0) {
      throw in.error(RelocationWireError.FORBIDDEN_FLAG, "flags", 4, String.format("0x%02x", flags),
          "0x00 (relocation commands allow no flags)");
    }
  }
}
