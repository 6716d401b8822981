package dev.spotkit.relocation.wire;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A bounds-checked big-endian cursor over one frame or stream, the one reader of every framework decoder
 * (relocation's here, toolkit-core's framework commands). Every read names its field; a read past the end
 * is {@link WireError#TRUNCATED_FIELD}, a value outside its type {@link WireError#INVALID_FIELD},
 * both with the field's offset. Nothing is allocated before its length is checked against the bytes actually
 * present, so the largest allocation is bounded by the input's own size. Not thread-safe; one per decode. The
 * array is only read, never kept after the decode.
 */
public final class WireIn {

  private final byte[] buf;
  private final String source;
  /** What {@link #expectEnd()} names as the limit: "end of input" or "end of frame". */
  private final String end;
  private int pos;

  WireIn(final byte[] buf, final String source) {
    this(buf, source, "end of input");
  }

  private WireIn(final byte[] buf, final String source, final String end) {
    this.buf = buf;
    this.source = source;
    this.end = end;
  }

  /**
   * A reader over one whole frame; a trailing byte is reported against "end of frame".
   *
   * @param frame the frame; only read.
   * @param name the frame's name for error messages, e.g. {@code userSpotClose}.
   * @return a reader at offset 0.
   */
  public static WireIn frame(final byte[] frame, final String name) {
    return new WireIn(frame, name, "end of frame");
  }

  /**
   * The read position.
   *
   * @return bytes consumed so far.
   */
  public int position() {
    return pos;
  }

  /**
   * Bytes left.
   *
   * @return the input's length minus {@link #position()}.
   */
  public int remaining() {
    return buf.length - pos;
  }

  /**
   * The decode error for this input.
   *
   * @param error what is wrong.
   * @param field dotted field path.
   * @param offset where the field starts.
   * @param value the offending value.
   * @param limit what was allowed; may be empty.
   * @return the exception, for the caller to throw.
   */
  public WireFormatException error(final WireError error, final String field, final int offset,
      final String value, final String limit) {
    return new WireFormatException(source, error, field, offset, value, limit);
  }

  private void need(final String field, final long n) {
    if (buf.length - pos < n) {
      throw error(WireError.TRUNCATED_FIELD, field, pos, "needs " + n + " bytes, " + (buf.length - pos)
          + " left", "");
    }
  }

  /**
   * A u8.
   *
   * @param field the field name.
   * @return 0..255.
   */
  public int u8(final String field) {
    need(field, 1);
    return buf[pos++] & 0xFF;
  }

  /**
   * A big-endian u16.
   *
   * @param field the field name.
   * @return 0..65535.
   */
  public int u16(final String field) {
    need(field, 2);
    final int v = ((buf[pos] & 0xFF) << 8) | (buf[pos + 1] & 0xFF);
    pos += 2;
    return v;
  }

  /**
   * A big-endian u32.
   *
   * @param field the field name.
   * @return 0..2^32-1.
   */
  public long u32(final String field) {
    need(field, 4);
    long v = 0;
    for (int i = 0; i < 4; i++) {
      v = (v << 8) | (buf[pos + i] & 0xFF);
    }
    pos += 4;
    return v;
  }

  /**
   * A big-endian u64.
   *
   * @param field the field name.
   * @return the 64 bits, unsigned.
   */
  public long u64(final String field) {
    need(field, 8);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (buf[pos + i] & 0xFF);
    }
    pos += 8;
    return v;
  }

  /**
   * nonzero-u64: 1..2^63-1 (the schema's maximum), so it fits a positive long.
   *
   * @param field the field name.
   * @return 1..2^63-1.
   */
  public long nonZeroU64(final String field) {
    final int at = pos;
    final long v = u64(field);
    if (v <= 0) {
      throw error(WireError.INVALID_FIELD, field, at, "value " + Long.toUnsignedString(v),
          Fields.NONZERO_U64_RANGE);
    }
    return v;
  }

  /**
   * A u32 that must not be zero.
   *
   * @param field the field name.
   * @return 1..2^32-1.
   */
  public long nonZeroU32(final String field) {
    final int at = pos;
    final long v = u32(field);
    if (v == 0) {
      throw error(WireError.INVALID_FIELD, field, at, "value 0", "1..4294967295");
    }
    return v;
  }

  /**
   * A u32 within [min, max].
   *
   * @param field the field name.
   * @param min smallest allowed.
   * @param max largest allowed.
   * @return the value.
   */
  public long u32(final String field, final long min, final long max) {
    final int at = pos;
    final long v = u32(field);
    if (v < min || v > max) {
      throw error(WireError.INVALID_FIELD, field, at, "value " + v, min + ".." + max);
    }
    return v;
  }

  /**
   * bool8: 0 or 1.
   *
   * @param field the field name.
   * @return the value.
   */
  public boolean bool8(final String field) {
    final int at = pos;
    final int v = u8(field);
    if (v > 1) {
      throw error(WireError.INVALID_FIELD, field, at, "value " + v, "0 or 1");
    }
    return v == 1;
  }

  /**
   * rid: u8 length 1..255, then opaque bytes.
   *
   * @param field the field name.
   * @return the rid.
   */
  public Rid rid(final String field) {
    final int at = pos;
    final int length = u8(field + ".length");
    if (length == 0) {
      throw error(WireError.INVALID_FIELD, field + ".length", at, "value 0", "1..255");
    }
    return Rid.wrap(bytes(field, length));
  }

  /**
   * text8: u8 length 1..255, then UTF-8 without NUL.
   *
   * @param field the field name.
   * @return the text.
   */
  public String text8(final String field) {
    final int at = pos;
    return text(field, at, u8(field + ".length"), 255);
  }

  /**
   * Store version: u16 length 1..4096, then UTF-8 without NUL.
   *
   * @param field the field name.
   * @return the version.
   */
  public String storeVersion(final String field) {
    final int at = pos;
    return text(field, at, u16(field + ".length"), Fields.STORE_VERSION_MAX_BYTES);
  }

  private String text(final String field, final int at, final int length, final int max) {
    if (length < 1 || length > max) {
      throw error(WireError.INVALID_FIELD, field + ".length", at, "value " + length, "1.." + max);
    }
    need(field, length);
    final int start = pos;
    boolean ascii = true;
    for (int i = start; i < start + length; i++) {
      if (buf[i] == 0) {
        throw error(WireError.INVALID_FIELD, field, i, "NUL byte", "UTF-8 without NUL");
      }
      ascii &= buf[i] > 0;
    }
    if (ascii) { // ASCII is well-formed UTF-8 with the same meaning; no CharsetDecoder needed
      pos += length;
      return new String(buf, start, length, StandardCharsets.US_ASCII);
    }
    try {
      final String s = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(buf, start, length))
          .toString();
      pos += length;
      return s;
    } catch (CharacterCodingException e) {
      throw error(WireError.INVALID_FIELD, field, start, "malformed UTF-8", "well-formed UTF-8");
    }
  }

  /**
   * Copies {@code length} bytes after checking they are present (so a forged length allocates nothing).
   *
   * @param field the field name.
   * @param length how many bytes.
   * @return a new array.
   */
  public byte[] bytes(final String field, final long length) {
    need(field, length);
    final byte[] out = Arrays.copyOfRange(buf, pos, pos + (int) length);
    pos += (int) length;
    return out;
  }

  /**
   * Steps over {@code length} bytes after checking they are present.
   *
   * @param field the field name.
   * @param length how many bytes.
   * @return where they start.
   */
  public int skip(final String field, final long length) {
    need(field, length);
    final int at = pos;
    pos += (int) length;
    return at;
  }

  /**
   * A union case or section that started at {@code bodyStart} must have held exactly {@code declared} bytes.
   *
   * @param field the section's field name.
   * @param lengthOffset where its length field starts.
   * @param bodyStart where its body starts.
   * @param declared the length it declared.
   * @param error the error when it differs.
   */
  public void endSection(final String field, final int lengthOffset, final int bodyStart, final long declared,
      final WireError error) {
    final int actual = pos - bodyStart;
    if (actual != declared) {
      throw error(error, field, lengthOffset, "declares " + declared + " bytes, fields hold " + actual, "");
    }
  }

  /** The input must end here. */
  public void expectEnd() {
    if (pos != buf.length) {
      throw trailingBytes();
    }
  }

  /**
   * The error for bytes after the last field.
   *
   * @return the exception, for the caller to throw.
   */
  public WireFormatException trailingBytes() {
    return error(WireError.TRAILING_BYTE, "end", pos, (buf.length - pos) + " byte(s) after the last field", end);
  }
}
