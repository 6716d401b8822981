package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.Rid;

import dev.spotkit.relocation.wire.OperationId;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A bounds-checked, big-endian cursor over one frame. Every read names its field; a read that would pass the
 * end of the frame throws {@link WireError#TRUNCATED_FIELD}, a value outside its type throws
 * {@link WireError#INVALID_FIELD}, both with the field's offset. Nothing is allocated before its length has
 * been checked against the bytes that are actually there, so a forged length costs nothing: the largest
 * allocation is bounded by the frame's own size.
 *
 * <p>Not thread-safe; one per decode call. The frame array is only read, never kept after the decode.
 */
final class WireReader {

  private final byte[] frame;
  private final String name;
  private int pos;

  WireReader(final byte[] frame, final String name) {
    this.frame = frame;
    this.name = name;
  }

  int position() {
    return pos;
  }

  int remaining() {
    return frame.length - pos;
  }

  String name() {
    return name;
  }

  WireFormatException error(final WireError error, final String field, final int offset, final String value,
      final String limit) {
    return new WireFormatException(name, error, field, offset, value, limit);
  }

  private void need(final String field, final int n) {
    if (frame.length - pos < n) {
      throw error(WireError.TRUNCATED_FIELD, field, pos, "needs " + n + " bytes, " + (frame.length - pos)
          + " left", "");
    }
  }

  int u8(final String field) {
    need(field, 1);
    return frame[pos++] & 0xFF;
  }

  int u16(final String field) {
    need(field, 2);
    final int v = ((frame[pos] & 0xFF) << 8) | (frame[pos + 1] & 0xFF);
    pos += 2;
    return v;
  }

  long u32(final String field) {
    need(field, 4);
    long v = 0;
    for (int i = 0; i < 4; i++) {
      v = (v << 8) | (frame[pos + i] & 0xFF);
    }
    pos += 4;
    return v;
  }

  long u64(final String field) {
    need(field, 8);
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (frame[pos + i] & 0xFF);
    }
    pos += 8;
    return v;
  }

  /** nonzero-u64: 1..2^63-1 (the schema's maximum), so it fits a positive long. */
  long nonZeroU64(final String field) {
    final int at = pos;
    final long v = u64(field);
    if (v <= 0) {
      throw error(WireError.INVALID_FIELD, field, at, "value " + Long.toUnsignedString(v),
          Checks.NONZERO_U64_RANGE);
    }
    return v;
  }

  /** u32 within [min, max]. */
  long u32(final String field, final long min, final long max) {
    final int at = pos;
    final long v = u32(field);
    if (v < min || v > max) {
      throw error(WireError.INVALID_FIELD, field, at, "value " + v, min + ".." + max);
    }
    return v;
  }

  boolean bool8(final String field) {
    final int at = pos;
    final int v = u8(field);
    if (v > 1) {
      throw error(WireError.INVALID_FIELD, field, at, "value " + v, "0 or 1");
    }
    return v == 1;
  }

  /** Two u64 (high, low), not both zero. */
  OperationId operationId(final String field) {
    final int at = pos;
    final long high = u64(field + ".high");
    final long low = u64(field + ".low");
    if (high == 0 && low == 0) {
      throw error(WireError.INVALID_FIELD, field, at, "value 0", "non-zero 128-bit id");
    }
    return new OperationId(high, low);
  }

  Rid rid(final String field) {
    final int at = pos;
    final int length = u8(field + ".length");
    if (length == 0) {
      throw error(WireError.INVALID_FIELD, field + ".length", at, "value 0", "1.." + Rid.MAX_BYTES);
    }
    return Rid.of(bytes(field, length));
  }

  /** text8: u8 length 1..255, then UTF-8 without NUL. */
  String text8(final String field) {
    final int at = pos;
    final int length = u8(field + ".length");
    return text(field, at, length, 255);
  }

  /** Store version: u16 length 1..4096, then UTF-8 without NUL. */
  String storeVersion(final String field) {
    final int at = pos;
    final int length = u16(field + ".length");
    return text(field, at, length, Checks.STORE_VERSION_MAX_BYTES);
  }

  private String text(final String field, final int at, final int length, final int max) {
    if (length < 1 || length > max) {
      throw error(WireError.INVALID_FIELD, field + ".length", at, "value " + length, "1.." + max);
    }
    need(field, length);
    final int start = pos;
    for (int i = start; i < start + length; i++) {
      if (frame[i] == 0) {
        throw error(WireError.INVALID_FIELD, field, i, "NUL byte", "UTF-8 without NUL");
      }
    }
    try {
      final String s = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(frame, start, length))
          .toString();
      pos += length;
      return s;
    } catch (CharacterCodingException e) {
      throw error(WireError.INVALID_FIELD, field, start, "malformed UTF-8", "well-formed UTF-8");
    }
  }

  /** Copies {@code length} bytes; the length must already be known to be sane (it is checked here too). */
  byte[] bytes(final String field, final int length) {
    need(field, length);
    final byte[] out = new byte[length];
    System.arraycopy(frame, pos, out, 0, length);
    pos += length;
    return out;
  }

  /**
   * Checks that a length-delimited section that started at {@code bodyStart} and declared {@code declared}
   * bytes held exactly that many.
   */
  void endSection(final String field, final int lengthOffset, final int bodyStart, final long declared,
      final WireError error) {
    final int actual = pos - bodyStart;
    if (actual != declared) {
      throw error(error, field, lengthOffset, "declares " + declared + " bytes, fields hold " + actual, "");
    }
  }

  /** The frame must end here. */
  void expectEnd() {
    if (pos != frame.length) {
      throw trailingBytes();
    }
  }

  WireFormatException trailingBytes() {
    return error(WireError.TRAILING_BYTE, "end", pos, (frame.length - pos) + " byte(s) after the last field",
        "end of frame");
  }
}
