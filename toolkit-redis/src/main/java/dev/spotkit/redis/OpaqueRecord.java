package dev.spotkit.redis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One member of a record's sorted-set log (FACTS.md "Redis layout", spec 002 section 3.4): the tag byte 0x01,
 * then a MessagePack array of five: original key (str), raw value bytes (str), version (str), expiresAtMs
 * (unsigned int, 0 = never) and tombstone (bool). Only the str family is used for bytes, never bin, and
 * integers take the smallest unsigned form, exactly as Redis Lua {@code cmsgpack.pack} writes them (the Lua
 * scripts of {@link RedisLocationStore} write members; this class reads them and encodes the golden vectors).
 *
 * <p>Why a hand-written codec instead of a MessagePack library: the shape is fixed (one array of five, three
 * str, one uint, one bool), the contract is "what cmsgpack writes" (str8 included, never bin), and a strict
 * decoder that refuses every other type is the point: about 120 lines against a dependency whose defaults
 * (bin for byte arrays, lenient decoding) would have to be switched off one by one.
 *
 * @param originalKey the logical key, as UTF-8 bytes in the member.
 * @param value the stored bytes (empty for a tombstone).
 * @param version the StoreVersion, a decimal string of the INCR sequence.
 * @param expiresAtMillis store time of expiry in epoch ms, or 0 for never.
 * @param tombstone true when the member records a delete.
 */
public record OpaqueRecord(byte[] originalKey, byte[] value, String version, long expiresAtMillis,
    boolean tombstone) {

  /** The tag byte of the current member format. */
  public static final int TAG = 0x01;

  /**
   * Checks the parts.
   *
   * @throws NullPointerException when a part is null.
   * @throws IllegalArgumentException when the expiry is negative.
   */
  public OpaqueRecord {
    Objects.requireNonNull(originalKey, "originalKey");
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(version, "version");
    if (expiresAtMillis < 0) {
      throw new IllegalArgumentException("expiresAtMillis " + expiresAtMillis + " must be 0 (never) or positive");
    }
  }

  /**
   * The logical key as text.
   *
   * @return the UTF-8 decoding of {@link #originalKey()}.
   */
  public String key() {
    return new String(originalKey, StandardCharsets.UTF_8);
  }

  /**
   * The full stored member: the tag 0x01 followed by the MessagePack array.
   *
   * @return fresh bytes.
   */
  public byte[] encode() {
    final ByteArrayOutputStream out = new ByteArrayOutputStream(originalKey.length + value.length + 32);
    out.write(TAG);
    out.write(0x95);
    str(out, originalKey);
    str(out, value);
    str(out, version.getBytes(StandardCharsets.UTF_8));
    uint(out, expiresAtMillis);
    out.write(tombstone ? 0xc3 : 0xc2);
    return out.toByteArray();
  }

  /**
   * Reads one stored member.
   *
   * @param member the bytes of the sorted-set member.
   * @return the record.
   * @throws OpaqueRecordException when the tag is not 0x01, or the bytes are not exactly the five-element array
   *     of the layout (another type, bin, a negative or float number, trailing bytes).
   */
  public static OpaqueRecord decode(final byte[] member) {
    if (member.length == 0 || (member[0] & 0xff) != TAG) {
      throw new OpaqueRecordException(member.length == 0 ? "empty opaque record member"
          : String.format("unknown opaque record tag 0x%02x (this Spotkit reads tag 0x01 only)", member[0] & 0xff));
    }
    final Reader in = new Reader(member);
    in.pos = 1;
    if (in.next() != 0x95) {
      throw new OpaqueRecordException("opaque record member is not a MessagePack array of five");
    }
    final byte[] key = in.str("original key");
    final byte[] value = in.str("value");
    final String version = new String(in.str("version"), StandardCharsets.UTF_8);
    final long expires = in.uint("expiresAtMs");
    final int bool = in.next();
    if (bool != 0xc2 && bool != 0xc3) {
      throw new OpaqueRecordException("opaque record tombstone is not a MessagePack bool");
    }
    if (in.pos != member.length) {
      throw new OpaqueRecordException("opaque record member has " + (member.length - in.pos) + " trailing bytes");
    }
    return new OpaqueRecord(key, value, version, expires, bool == 0xc3);
  }

  private static void str(final ByteArrayOutputStream out, final byte[] bytes) {
    final int n = bytes.length;
    if (n < 32) {
      out.write(0xa0 | n);
    } else if (n <= 0xff) {
      out.write(0xd9);
      out.write(n);
    } else if (n <= 0xffff) {
      out.write(0xda);
      out.write(n >>> 8);
      out.write(n);
    } else {
      out.write(0xdb);
      for (int shift = 24; shift >= 0; shift -= 8) {
        out.write(n >>> shift);
      }
    }
    out.write(bytes, 0, n);
  }

  private static void uint(final ByteArrayOutputStream out, final long v) {
    final int bytes;
    if (v <= 0x7f) {
      out.write((int) v);
      return;
    } else if (v <= 0xff) {
      out.write(0xcc);
      bytes = 1;
    } else if (v <= 0xffff) {
      out.write(0xcd);
      bytes = 2;
    } else if (v <= 0xffffffffL) {
      out.write(0xce);
      bytes = 4;
    } else {
      out.write(0xcf);
      bytes = 8;
    }
    for (int i = bytes - 1; i >= 0; i--) {
      out.write((int) (v >>> (8 * i)));
    }
  }

  /** A bounds-checked cursor over a member. */
  private static final class Reader {
    private final byte[] bytes;
    private int pos;

    Reader(final byte[] bytes) {
      this.bytes = bytes;
    }

    int next() {
      if (pos >= bytes.length) {
        throw new OpaqueRecordException("opaque record member ends early at byte " + pos);
      }
      return bytes[pos++] & 0xff;
    }

    long fixed(final int n) {
      long v = 0;
      for (int i = 0; i < n; i++) {
        v = (v << 8) | next();
      }
      return v;
    }

    byte[] str(final String field) {
      final int type = next();
      final long n;
      if ((type & 0xe0) == 0xa0) {
        n = type & 0x1f;
      } else if (type == 0xd9) {
        n = fixed(1);
      } else if (type == 0xda) {
        n = fixed(2);
      } else if (type == 0xdb) {
        n = fixed(4);
      } else {
        throw new OpaqueRecordException(String.format("opaque record %s has MessagePack type 0x%02x, not str",
            field, type));
      }
      if (n > bytes.length - pos) {
        throw new OpaqueRecordException("opaque record " + field + " of " + n + " bytes runs past the member");
      }
      final byte[] out = java.util.Arrays.copyOfRange(bytes, pos, pos + (int) n);
      pos += (int) n;
      return out;
    }

    long uint(final String field) {
      final int type = next();
      if (type <= 0x7f) {
        return type;
      }
      final long v = switch (type) {
        case 0xcc -> fixed(1);
        case 0xcd -> fixed(2);
        case 0xce -> fixed(4);
        case 0xcf -> fixed(8);
        default -> throw new OpaqueRecordException(String.format(
            "opaque record %s has MessagePack type 0x%02x, not an unsigned int", field, type));
      };
      if (v < 0) {
        throw new OpaqueRecordException("opaque record " + field + " is beyond 2^63-1");
      }
      return v;
    }
  }
}
