package dev.spotkit.relocation.wire;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * Who sent a frozen record (spec 001 section 4.2, "source identity"), a union on the wire:
 *
 * <pre>
 *   sourceKind  u8   1 node; 2..255 other kinds, kept as opaque bytes
 *   length      u16  bytes of the case body
 *   body        node: nodeRid rid, nodeGeneration nonzero-u64, ownerId text8, ownerLeaseGeneration nonzero-u64
 * </pre>
 *
 * Kind 0 is {@link WireError#INVALID_FIELD}. Only the node case is fixed by a golden vector; other
 * kinds are carried through unchanged (so a relay of another runtime's record is lossless) and are for the
 * caller to accept or refuse.
 */
public sealed interface RecordSource {

  /**
   * The discriminator.
   *
   * @return 1..255.
   */
  int kind();

  /**
   * A node sent the record (kind 1).
   *
   * @param nodeRid the sending node's rid.
   * @param nodeGeneration its run generation, 1..2^63-1.
   * @param ownerId the sending owner id, 1..255 UTF-8 bytes.
   * @param ownerLeaseGeneration the owner's lease generation, 1..2^63-1.
   */
  record Node(Rid nodeRid, long nodeGeneration, String ownerId, long ownerLeaseGeneration) implements RecordSource {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public Node {
      Fields.present("nodeRid", nodeRid);
      Fields.positive("nodeGeneration", nodeGeneration);
      Fields.text8("ownerId", ownerId);
      Fields.positive("ownerLeaseGeneration", ownerLeaseGeneration);
    }

    @Override
    public int kind() {
      return 1;
    }
  }

  /**
   * A source kind this module does not interpret, kept byte for byte.
   *
   * @param kind 2..255.
   * @param body the case body, 0..65535 bytes.
   */
  record Opaque(int kind, byte[] body) implements RecordSource {
    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException when the kind is outside 2..255 or the body is over 65535 bytes.
     */
    public Opaque {
      if (kind < 2 || kind > 255) {
        throw new IllegalArgumentException("opaque source kind " + kind + " must be in 2..255");
      }
      body = Fields.present("body", body).clone();
      if (body.length > 0xFFFF) {
        throw new IllegalArgumentException("opaque source body is " + body.length + " bytes; must be 0..65535");
      }
    }

    /**
     * The case body.
     *
     * @return a copy.
     */
    @Override
    public byte[] body() {
      return body.clone();
    }

    @Override
    public boolean equals(final Object o) {
      return o instanceof Opaque other && kind == other.kind && Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() {
      return kind * 31 + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
      return "Opaque[kind=" + kind + ", body=" + HexFormat.of().formatHex(body) + "]";
    }
  }
}
