package dev.spotkit.relocation.wire;

/**
 * The five bytes every framework frame starts with, for the relocation commands of this module and the
 * framework commands of toolkit-core alike: {@code 5A 4D} ("ZM"), wire major {@code 01}, the command number, and
 * a flags byte (FACTS.md "Wire").
 *
 * <pre>
 *   offset 0  1  2  3        4
 *          5A 4D 01 command  flags    (flags: 0x01 metadata, 0x02 bound session, 0x04 source spot id,
 *                                      0x08 extension; any other bit is a protocol error)
 * </pre>
 *
 * Relocation and session-relocation commands allow no flags: an undefined bit is
 * {@link WireError#UNDEFINED_FLAG}, a defined one {@link WireError#FORBIDDEN_FLAG}.
 *
 * @param command the command number, 0..255.
 * @param flags the flags byte; only the four defined bits may be set.
 */
public record FrameHead(int command, int flags) {

  /** First magic byte, 'Z'. */
  public static final int MAGIC_0 = 0x5A;
  /** Second magic byte, 'M'. */
  public static final int MAGIC_1 = 0x4D;
  /** The only wire major version. */
  public static final int WIRE_MAJOR = 1;
  /** Length of the head in bytes. */
  public static final int LENGTH = 5;

  /** Flag: a metadata frame follows. */
  public static final int FLAG_METADATA = 0x01;
  /** Flag: bound-session tail present. */
  public static final int FLAG_BOUND_SESSION = 0x02;
  /** Flag: source spot id present. */
  public static final int FLAG_SOURCE_SPOT_ID = 0x04;
  /** Flag: command body extension present. */
  public static final int FLAG_EXTENSION = 0x08;
  /** Every defined flag bit. */
  public static final int DEFINED_FLAGS = FLAG_METADATA | FLAG_BOUND_SESSION | FLAG_SOURCE_SPOT_ID | FLAG_EXTENSION;

  /**
   * Validates the values.
   *
   * @throws IllegalArgumentException when the command is outside 0..255 or an undefined flag is set.
   */
  public FrameHead {
    Fields.u8("command", command);
    if ((flags & ~DEFINED_FLAGS) != 0) {
      throw new IllegalArgumentException("flags 0x" + Integer.toHexString(flags)
          + " set a bit outside 0x0f (metadata 0x01, bound session 0x02, source spot id 0x04, extension 0x08)");
    }
  }

  /**
   * Reads the head of a frame, checking magic, wire major and that no undefined flag is set. It does not
   * check which flags the command allows; the command's decoder does.
   *
   * @param frame the whole frame; only read.
   * @return the head.
   * @throws WireFormatException when the frame is shorter than 5 bytes or the head is malformed.
   */
  public static FrameHead decode(final byte[] frame) {
    return read(WireIn.frame(frame, "frame"));
  }

  /**
   * Reads the head at the reader's position (offset 0), checking magic, wire major and undefined flags.
   *
   * @param in the reader at offset 0; on return it stands at the first body byte.
   * @return the head.
   * @throws WireFormatException bad-magic, unsupported-version, undefined-flag or truncated-field.
   */
  public static FrameHead read(final WireIn in) {
    magicAndMajor(in);
    final int command = in.u8("commandId");
    final int flags = in.u8("flags");
    if ((flags & ~DEFINED_FLAGS) != 0) {
      throw in.error(WireError.UNDEFINED_FLAG, "flags", 4, String.format("0x%02x", flags), "bits of 0x0f");
    }
    return new FrameHead(command, flags);
  }

  /**
   * Reads the head and checks it is {@code command} with no flags: the rule of commands 20, 47, 48 and 49.
   *
   * @param in the reader at offset 0; on return it stands at the first body byte.
   * @param command the one command expected.
   * @throws WireFormatException as {@link #read(WireIn)}, or unexpected-command, forbidden-flag.
   */
  public static void expect(final WireIn in, final int command) {
    final FrameHead head = read(in);
    if (head.command() != command) {
      throw in.error(WireError.UNEXPECTED_COMMAND, "commandId", 3, "value " + head.command(),
          String.valueOf(command));
    }
    if (head.flags() != 0) {
      throw in.error(WireError.FORBIDDEN_FLAG, "flags", 4, String.format("0x%02x", head.flags()),
          "0x00 (command " + command + " allows no flags)");
    }
  }

  /** Reads bytes 0 to 2: the magic and the wire major. */
  private static void magicAndMajor(final WireIn in) {
    final int m0 = in.u8("magic");
    final int m1 = in.u8("magic");
    if (m0 != MAGIC_0 || m1 != MAGIC_1) {
      throw in.error(WireError.BAD_MAGIC, "magic", 0, String.format("%02x%02x", m0, m1), "5a4d");
    }
    final int major = in.u8("wireMajor");
    if (major != WIRE_MAJOR) {
      throw in.error(WireError.UNSUPPORTED_VERSION, "wireMajor", 2, "value " + major, "1");
    }
  }

  /**
   * Writes the head.
   *
   * @param out the writer, at offset 0.
   */
  public void writeTo(final WireOut out) {
    out.u8(MAGIC_0);
    out.u8(MAGIC_1);
    out.u8(WIRE_MAJOR);
    out.u8(command);
    out.u8(flags);
  }

  /** Writes {@code 5A 4D 01 <command> 00}. */
  static void write(final WireOut out, final int command) {
    out.u8(MAGIC_0);
    out.u8(MAGIC_1);
    out.u8(WIRE_MAJOR);
    out.u8(command);
    out.u8(0);
  }

  /**
   * Reads and checks the head of a relocation command. Unlike {@link #read(WireIn)} it refuses an unknown
   * command before it reads the flags byte, and any flag at all.
   *
   * @param in the reader at offset 0.
   * @param known whether byte 3 (already peeked by the caller) is a command this codec decodes.
   * @param expectedCommands the commands this codec decodes, for the error message, e.g. {@code "42, 43 or 44"}.
   * @throws WireFormatException bad-magic, unsupported-version, unexpected-command, undefined-flag,
   *     forbidden-flag or truncated-field.
   */
  static void read(final WireIn in, final boolean known, final String expectedCommands) {
    magicAndMajor(in);
    final int command = in.u8("commandId");
    if (!known) {
      throw in.error(WireError.UNEXPECTED_COMMAND, "commandId", 3, "value " + command, expectedCommands);
    }
    final int flags = in.u8("flags");
    if ((flags & ~DEFINED_FLAGS) != 0) {
      throw in.error(WireError.UNDEFINED_FLAG, "flags", 4, String.format("0x%02x", flags), "bits of 0x0f");
    }
    if (flags != 0) {
      throw in.error(WireError.FORBIDDEN_FLAG, "flags", 4, String.format("0x%02x", flags),
          "0x00 (relocation commands allow no flags)");
    }
  }
}
