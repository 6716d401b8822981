package dev.spotkit.relocation.wire;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A bounds-checked big-endian cursor over one frame or stream. Every read names its field; a read past the end
 * is {@link RelocationWireError#TRUNCATED_FIELD}, a value outside its type {@link RelocationWireError#INVALID_FIELD},
 * both with the field's offset. Nothing is allocated before its length is checked against the bytes actually
 * present, so the largest allocation is bounded by the input's own size. Not thread-safe; one per decode.
 */
final class WireIn {

  private final byte[] buf;
  private final String source;
  private int pos;

  WireIn(final byte[] buf, final String source) {
    this.buf = buf;
    this.source = source;
  }

  int position() {
    return pos;
  }

  int remaining() {
    return buf.length - pos;
  }

  RelocationWireException error(final RelocationWireError error, final String field, final int offset,
      final String value, final String limit) {
    return new RelocationWireException(source, error, field, offset, value, limit);
  }

  private void need(final String field, final long n) {
    if (buf.length - pos < n) {
      throw error(RelocationWireError.TRUNCATED_FIELD, field, pos, "needs " + n + " bytes, " + (buf.length - pos)
          + " left", "");
    }
  }

  int u8(final String field) {
    need(field, 1);
    return buf[pos++] & 0xFF;
  }

  int u16(final String field) {
    need(field, 2);
    final int v = ((buf[pos] & 0xFF) << 8) | (buf[pos + 1] & 0xFF);
    pos += 2;
    return v;
  }

  long u32(final String field) {
    need(field, 4);
    long v = 0;
    for (int i = 0; i < 4; i++) {
      v = (v << 8) | (buf[pos + i] & 0xFF);
    }
    pos += 4;
    return v;
  }

  long u64(final String field) {
    need(field, 8);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (buf[pos + i] & 0xFF);
    }
    pos += 8;
    return v;
  }

  /** nonzero-u64: 1..2^63-1. */
  long nonZeroU64(final String field) {
    final int at = pos;
    final long v = u64(field);
    if (v <= 0) {
      throw error(RelocationWireError.INVALID_FIELD, field, at, "value " + Long.toUnsignedString(v),
          Fields.NONZERO_U64_RANGE);
    }
    return v;
  }

  /** A u32 that must not be zero. */
  long nonZeroU32(final String field) {
    final int at = pos;
    final long v = u32(field);
    if (v == 0) {
      throw error(RelocationWireError.INVALID_FIELD, field, at, "value 0", "1..4294967295");
    }
    return v;
  }

  boolean bool8(final String field) {
    final int at = pos;
    final int v = u8(field);
    if (v > 1) {
      throw error(RelocationWireError.INVALID_FIELD, field, at, "value " + v, "0 or 1");
    }
    return v == 1;
  }

  /** rid: u8 length 1..255, then opaque bytes. */
  Rid rid(final String field) {
    final int at = pos;
    final int length = u8(field + ".length");
    if (length == 0) {
      throw error(RelocationWireError.INVALID_FIELD, field + ".length", at, "value 0", "1..255");
    }
    return Rid.wrap(bytes(field, length));
  }

  /** text8: u8 length 1..255, then UTF-8 without NUL. */
  String text8(final String field) {
    final int at = pos;
    return text(field, at, u8(field + ".length"), 255);
  }

  /** Store version: u16 length 1..4096, then UTF-8 without NUL. */
  String storeVersion(final String field) {
    final int at = pos;
    return text(field, at, u16(field + ".length"), Fields.STORE_VERSION_MAX_BYTES);
  }

  private String text(final String field, final int at, final int length, final int max) {
    if (length < 1 || length > max) {
      throw error(RelocationWireError.INVALID_FIELD, field + ".length", at, "value " + length, "1.." + max);
    }
    need(field, length);
    final int start = pos;
    boolean ascii = true;
    for (int i = start; i < start + length; i++) {
      if (buf[i] == 0) {
        throw error(RelocationWireError.INVALID_FIELD, field, i, "NUL byte", "UTF-8 without NUL");
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
      throw error(RelocationWireError.INVALID_FIELD, field, start, "malformed UTF-8", "well-formed UTF-8");
    }
  }

  /** Copies {@code length} bytes after checking they are present (so a forged length allocates nothing). */
  byte[] bytes(final String field, final long length) {
    need(field, length);
    final byte[] out = Arrays.copyOfRange(buf, pos, pos + (int) length);
    pos += (int) length;
    return out;
  }

  /** Steps over {@code length} bytes after checking they are present; returns where they start. */
  int skip(final String field, final long length) {
    need(field, length);
    final int at = pos;
    pos += (int) length;
    return at;
  }

  /** A union case or section that started at {@code bodyStart} must have held exactly {@code declared} bytes. */
  void endSection(final String field, final int lengthOffset, final int bodyStart, final long declared,
      final RelocationWireError error) {
    final int actual = pos - bodyStart;
    if (actual != declared) {
      throw error(error, field, lengthOffset, "declares " + declared + " bytes, fields hold " + actual, "");
    }
  }

  /** The input must end here. */
  void expectEnd() {
    if (pos != buf.length) {
      throw error(RelocationWireError.TRAILING_BYTE, "end", pos, (buf.length - pos)
          + " byte(s) after the last field", "end of input");
    }
  }
}
