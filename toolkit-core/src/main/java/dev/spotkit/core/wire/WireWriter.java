package dev.spotkit.core.wire;

import dev.spotkit.relocation.wire.Rid;

import java.util.Arrays;

/**
 * A growable big-endian byte writer for encoders. Values reaching it were validated by the record
 * constructors, so it does no range checks beyond the length prefixes. Not thread-safe; one per encode.
 */
final class WireWriter {

  private byte[] buf;
  private int pos;

  WireWriter(final int initialCapacity) {
    this.buf = new byte[Math.max(16, initialCapacity)];
  }

  private void ensure(final int n) {
    if (buf.length - pos < n) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + n));
    }
  }

  int position() {
    return pos;
  }

  void u8(final int v) {
    ensure(1);
    buf[pos++] = (byte) v;
  }

  void u16(final int v) {
    ensure(2);
    buf[pos++] = (byte) (v >>> 8);
    buf[pos++] = (byte) v;
  }

  void u32(final long v) {
    ensure(4);
    for (int i = 3; i >= 0; i--) {
      buf[pos++] = (byte) (v >>> (8 * i));
    }
  }

  void u64(final long v) {
    ensure(8);
    for (int i = 7; i >= 0; i--) {
      buf[pos++] = (byte) (v >>> (8 * i));
    }
  }

  /** rid: u8 length 1..255, then the bytes. */
  void rid(final Rid rid) {
    final byte[] b = rid.bytes();
    u8(b.length);
    bytes(b);
  }

  void bytes(final byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, buf, pos, b.length);
    pos += b.length;
  }

  /** text8: u8 length then UTF-8 (already validated to 1..255 bytes). */
  void text8(final String s) {
    final byte[] b = Checks.utf8("text8", s);
    u8(b.length);
    bytes(b);
  }

  /** Store version: u16 length then UTF-8. */
  void storeVersion(final String s) {
    final byte[] b = Checks.utf8("storeVersion", s);
    u16(b.length);
    bytes(b);
  }

  /** Overwrites a u16 written earlier (a section length known only after its body). */
  void patchU16(final int at, final int v) {
    buf[at] = (byte) (v >>> 8);
    buf[at + 1] = (byte) v;
  }

  /** Overwrites a u32 written earlier. */
  void patchU32(final int at, final long v) {
    for (int i = 0; i < 4; i++) {
      buf[at + i] = (byte) (v >>> (24 - 8 * i));
    }
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, pos);
  }
}
