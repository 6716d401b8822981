package dev.spotkit.relocation.wire;

import java.util.Arrays;

/**
 * A growable big-endian writer for encoders. Values reaching it were validated by the record constructors.
 * A writer made by {@link #counting()} writes nothing and only counts, so an encoder can run twice: once to learn
 * the exact size, once into an array of that size ({@link #exact(int)}, whose {@link #toByteArray()} is the array
 * itself, not a copy). Not thread-safe; one per encode.
 */
final class WireOut {

  private byte[] buf;
  private int pos;
  private long counted;

  WireOut(final int initialCapacity) {
    this.buf = new byte[Math.max(16, initialCapacity)];
  }

  private WireOut(final byte[] buf) {
    this.buf = buf;
  }

  /** A writer that only counts bytes ({@link #counted()}); positions and patches are not available. */
  static WireOut counting() {
    return new WireOut((byte[]) null);
  }

  /** A writer into a new array of exactly {@code size} bytes; writing more still grows it. */
  static WireOut exact(final int size) {
    return new WireOut(new byte[size]);
  }

  /** Bytes a counting writer was given (any writer: bytes written). */
  long counted() {
    return buf == null ? counted : pos;
  }

  /** False for a counting writer (which adds {@code n} to its count instead). */
  private boolean ensure(final int n) {
    if (buf == null) {
      counted += n;
      return false;
    }
    if (buf.length - pos < n) {
      buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(buf.length * 2L, (long) pos + n)));
    }
    return true;
  }

  int position() {
    return pos;
  }

  void u8(final int v) {
    if (ensure(1)) {
      buf[pos++] = (byte) v;
    }
  }

  void u16(final int v) {
    if (ensure(2)) {
      buf[pos++] = (byte) (v >>> 8);
      buf[pos++] = (byte) v;
    }
  }

  void u32(final long v) {
    if (ensure(4)) {
      for (int i = 3; i >= 0; i--) {
        buf[pos++] = (byte) (v >>> (8 * i));
      }
    }
  }

  void u64(final long v) {
    if (ensure(8)) {
      for (int i = 7; i >= 0; i--) {
        buf[pos++] = (byte) (v >>> (8 * i));
      }
    }
  }

  void bool8(final boolean v) {
    u8(v ? 1 : 0);
  }

  void bytes(final byte[] b) {
    bytes(b, 0, b.length);
  }

  void bytes(final byte[] b, final int offset, final int length) {
    if (ensure(length)) {
      System.arraycopy(b, offset, buf, pos, length);
      pos += length;
    }
  }

  void text8(final String s) {
    final byte[] b = Fields.utf8("text8", s);
    u8(b.length);
    bytes(b);
  }

  void storeVersion(final String s) {
    final byte[] b = Fields.utf8("storeVersion", s);
    u16(b.length);
    bytes(b);
  }

  void rid(final Rid rid) {
    final byte[] b = rid.bytesUnsafe();
    u8(b.length);
    bytes(b);
  }

  void patchU16(final int at, final int v) {
    if (buf == null) {
      return;
    }
    buf[at] = (byte) (v >>> 8);
    buf[at + 1] = (byte) v;
  }

  void patchU32(final int at, final long v) {
    if (buf == null) {
      return;
    }
    for (int i = 0; i < 4; i++) {
      buf[at + i] = (byte) (v >>> (24 - 8 * i));
    }
  }

  /** The bytes written: the array itself when it is exactly full (an {@link #exact(int)} writer), else a copy. */
  byte[] toByteArray() {
    return pos == buf.length ? buf : Arrays.copyOf(buf, pos);
  }
}
