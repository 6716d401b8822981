package dev.spotkit.relocation.wire;

import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A growable big-endian writer, the one writer of every framework encoder (relocation's here, toolkit-core's
 * framework commands). Values reaching it were validated by the record constructors, so it does no range checks
 * beyond the length prefixes.
 * A writer made by {@link #counting()} writes nothing and only counts, so an encoder can run twice: once to learn
 * the exact size, once into an array of that size ({@link #exact(int)}, whose {@link #toByteArray()} is the array
 * itself, not a copy). Not thread-safe; one per encode.
 */
public final class WireOut {

  /** Bulk writes at least this long are copied and checksummed block by block, while each block is cached. */
  private static final int CRC_BLOCK = 64 * 1024;

  private byte[] buf;
  private int pos;
  private long counted;
  /** Null unless {@link #checksummed}: the CRC-32C of bytes [0, crcPos). */
  private CRC32C crc;
  private int crcPos;
  /** False once a patch landed in the checksummed part; {@link #crc32c()} then reads everything again. */
  private boolean crcValid = true;

  /**
   * A growable writer.
   *
   * @param initialCapacity bytes to start with (at least 16 are taken).
   */
  public WireOut(final int initialCapacity) {
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

  /**
   * A writer into a new array of exactly {@code size} bytes that also computes the CRC-32C of what it writes
   * ({@link #crc32c()}): large bulk writes are checksummed block by block right after each block is copied, so the
   * stream is not read a second time from memory.
   */
  static WireOut checksummed(final int size) {
    final WireOut out = exact(size);
    out.crc = new CRC32C();
    return out;
  }

  /** CRC-32C of every byte written so far (a {@link #checksummed} writer only). */
  long crc32c() {
    if (!crcValid) {
      crc.reset();
      crcPos = 0;
      crcValid = true;
    }
    crc.update(buf, crcPos, pos - crcPos);
    crcPos = pos;
    return crc.getValue();
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

  /**
   * The write position.
   *
   * @return bytes written so far.
   */
  public int position() {
    return pos;
  }

  /**
   * A u8.
   *
   * @param v the low 8 bits are written.
   */
  public void u8(final int v) {
    if (ensure(1)) {
      buf[pos++] = (byte) v;
    }
  }

  /**
   * A big-endian u16.
   *
   * @param v the low 16 bits are written.
   */
  public void u16(final int v) {
    if (ensure(2)) {
      buf[pos++] = (byte) (v >>> 8);
      buf[pos++] = (byte) v;
    }
  }

  /**
   * A big-endian u32.
   *
   * @param v the low 32 bits are written.
   */
  public void u32(final long v) {
    if (ensure(4)) {
      for (int i = 3; i >= 0; i--) {
        buf[pos++] = (byte) (v >>> (8 * i));
      }
    }
  }

  /**
   * A big-endian u64.
   *
   * @param v the 64 bits.
   */
  public void u64(final long v) {
    if (ensure(8)) {
      for (int i = 7; i >= 0; i--) {
        buf[pos++] = (byte) (v >>> (8 * i));
      }
    }
  }

  /**
   * bool8: 1 or 0.
   *
   * @param v the value.
   */
  public void bool8(final boolean v) {
    u8(v ? 1 : 0);
  }

  /**
   * Raw bytes.
   *
   * @param b all of them are written.
   */
  public void bytes(final byte[] b) {
    bytes(b, 0, b.length);
  }

  void bytes(final byte[] b, final int offset, final int length) {
    if (crc != null && length >= CRC_BLOCK && ensure(length)) {
      crc.update(buf, crcPos, pos - crcPos);
      for (int done = 0; done < length; ) {
        final int n = Math.min(CRC_BLOCK, length - done);
        System.arraycopy(b, offset + done, buf, pos, n);
        crc.update(buf, pos, n);
        pos += n;
        done += n;
      }
      crcPos = pos;
      return;
    }
    if (ensure(length)) {
      System.arraycopy(b, offset, buf, pos, length);
      pos += length;
    }
  }

  /**
   * text8: u8 length then UTF-8 (already validated to 1..255 bytes).
   *
   * @param s the text.
   */
  public void text8(final String s) {
    final byte[] b = Fields.utf8("text8", s);
    u8(b.length);
    bytes(b);
  }

  /**
   * Store version: u16 length then UTF-8.
   *
   * @param s the version.
   */
  public void storeVersion(final String s) {
    final byte[] b = Fields.utf8("storeVersion", s);
    u16(b.length);
    bytes(b);
  }

  /**
   * rid: u8 length 1..255, then the bytes.
   *
   * @param rid the rid.
   */
  public void rid(final Rid rid) {
    final byte[] b = rid.bytesUnsafe();
    u8(b.length);
    bytes(b);
  }

  /**
   * Overwrites a u16 written earlier (a section length known only after its body).
   *
   * @param at where it was written.
   * @param v the value.
   */
  public void patchU16(final int at, final int v) {
    if (buf == null) {
      return;
    }
    crcValid &= at >= crcPos;
    buf[at] = (byte) (v >>> 8);
    buf[at + 1] = (byte) v;
  }

  /**
   * Overwrites a u32 written earlier.
   *
   * @param at where it was written.
   * @param v the value.
   */
  public void patchU32(final int at, final long v) {
    if (buf == null) {
      return;
    }
    crcValid &= at >= crcPos;
    for (int i = 0; i < 4; i++) {
      buf[at + i] = (byte) (v >>> (24 - 8 * i));
    }
  }

  /**
   * The bytes written.
   *
   * @return the array itself when it is exactly full (an {@link #exact(int)} writer), else a copy.
   */
  public byte[] toByteArray() {
    return pos == buf.length ? buf : Arrays.copyOf(buf, pos);
  }
}
