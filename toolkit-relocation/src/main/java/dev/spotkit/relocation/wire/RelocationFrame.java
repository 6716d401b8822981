package dev.spotkit.relocation.wire;

import java.util.Arrays;
import java.util.Objects;

/**
 * The six relocation command bodies of spec 001 (FACTS.md "Wire"), as immutable records. Encode and decode with
 * {@link RelocationCodec}. Every frame is {@code 5A 4D 01 <command> 00} followed by the shared prefix
 * ({@link RelocationIdentity}: relocationId 16 bytes, targetAttemptGeneration u64, coordinator fence) and the
 * command's fields, big-endian, with nothing after the last field:
 *
 * <pre>
 *   30 relocationReady    prefix, targetFence, object, senderRole u8                     (reply to 40)
 *   31 relocationData     prefix, senderRole u8, object, frozen record                   (one ingress-hold record)
 *   34 relocationCutover  prefix, senderRole u8, object, boundaryRecordCount u64,
 *                         boundaryChecksumCrc32c u32                                      (one-way)
 *   40 relocationPrepare  prefix, targetFence, initiatorRole u8, object, sourceNodeRid rid,
 *                         sourceNodeGeneration nonzero-u64, payloadTotalLength u64, payloadChunkCount u32,
 *                         payloadChecksumCrc32c u32, applicationVersion i64               (the manifest)
 *   52 relocationState    prefix, senderRole u8, object, chunkOrdinal u32 (from 0),
 *                         chunk u32 length then bytes                                     (one-way)
 *   53 relocationFailed   prefix, targetFence, object, senderRole u8, failureCode u32 non-zero
 * </pre>
 *
 * Records are immutable and safe to share between threads.
 */
public sealed interface RelocationFrame {

  /**
   * The relocation identity every body starts with.
   *
   * @return the identity.
   */
  RelocationIdentity identity();

  /**
   * The object moved.
   *
   * @return the object identity.
   */
  ObjectIdentity object();

  /**
   * The command number.
   *
   * @return 30, 31, 34, 40, 52 or 53.
   */
  int command();

  /**
   * Command 30 relocationReady: the target's ready-to-receive-relay reply to 40 (spec 001 section 4.3).
   *
   * @param identity the relocation identity of the 40 it answers.
   * @param targetFence the target fence.
   * @param object the object.
   * @param senderRole normally {@link Role#TARGET}.
   */
  record Ready(RelocationIdentity identity, TargetFence targetFence, ObjectIdentity object, Role senderRole)
      implements RelocationFrame {

    /** The command number. */
    public static final int COMMAND = 30;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException when a part is null.
     */
    public Ready {
      Fields.present("identity", identity);
      Fields.present("targetFence", targetFence);
      Fields.present("object", object);
      Fields.present("senderRole", senderRole);
    }

    @Override
    public int command() {
      return COMMAND;
    }
  }

  /**
   * Command 31 relocationData: one post-capture ingress-hold record relayed before the cutover boundary (spec
   * 001 section 4.4).
   *
   * @param identity the relocation identity.
   * @param senderRole normally {@link Role#SOURCE}.
   * @param object the object.
   * @param record the relayed record.
   */
  record Data(RelocationIdentity identity, Role senderRole, ObjectIdentity object, FrozenRecord record)
      implements RelocationFrame {

    /** The command number. */
    public static final int COMMAND = 31;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException when a part is null.
     */
    public Data {
      Fields.present("identity", identity);
      Fields.present("senderRole", senderRole);
      Fields.present("object", object);
      Fields.present("record", record);
    }

    @Override
    public int command() {
      return COMMAND;
    }
  }

  /**
   * Command 34 relocationCutover: the one-way boundary after the pre-boundary relay (spec 001 section 4.4).
   *
   * @param identity the relocation identity.
   * @param senderRole normally {@link Role#SOURCE}.
   * @param object the object.
   * @param boundaryRecordCount relay records sent before the boundary, 0..2^63-1.
   * @param boundaryChecksumCrc32c CRC-32C of that whole relay, 0..2^32-1.
   */
  record Cutover(RelocationIdentity identity, Role senderRole, ObjectIdentity object, long boundaryRecordCount,
      long boundaryChecksumCrc32c) implements RelocationFrame {

    /** The command number. */
    public static final int COMMAND = 34;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public Cutover {
      Fields.present("identity", identity);
      Fields.present("senderRole", senderRole);
      Fields.present("object", object);
      if (boundaryRecordCount < 0) {
        throw new IllegalArgumentException("boundaryRecordCount " + Long.toUnsignedString(boundaryRecordCount)
            + " must be in 0..9223372036854775807");
      }
      Fields.u32("boundaryChecksumCrc32c", boundaryChecksumCrc32c);
    }

    @Override
    public int command() {
      return COMMAND;
    }
  }

  /**
   * Command 40 relocationPrepare: the Restore request and the manifest of the relocation-envelope-v1 stream
   * (spec 001 sections 4.2 and 4.3).
   *
   * @param identity the relocation identity.
   * @param targetFence the target fence.
   * @param initiatorRole normally {@link Role#SOURCE}.
   * @param object the object.
   * @param sourceNodeRid the source node.
   * @param sourceNodeGeneration its run generation, 1..2^63-1.
   * @param payloadTotalLength bytes of the whole encoded stream, 0..2^63-1.
   * @param payloadChunkCount number of command 52 chunks, 0..2^32-1.
   * @param payloadChecksumCrc32c CRC-32C of the whole stream, 0..2^32-1.
   * @param applicationVersion the source's application version (i64, any value).
   */
  record Prepare(RelocationIdentity identity, TargetFence targetFence, Role initiatorRole, ObjectIdentity object,
      Rid sourceNodeRid, long sourceNodeGeneration, long payloadTotalLength, long payloadChunkCount,
      long payloadChecksumCrc32c, long applicationVersion) implements RelocationFrame {

    /** The command number. */
    public static final int COMMAND = 40;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public Prepare {
      Fields.present("identity", identity);
      Fields.present("targetFence", targetFence);
      Fields.present("initiatorRole", initiatorRole);
      Fields.present("object", object);
      Fields.present("sourceNodeRid", sourceNodeRid);
      Fields.positive("sourceNodeGeneration", sourceNodeGeneration);
      if (payloadTotalLength < 0) {
        throw new IllegalArgumentException("payloadTotalLength " + Long.toUnsignedString(payloadTotalLength)
            + " must be in 0..9223372036854775807");
      }
      Fields.u32("payloadChunkCount", payloadChunkCount);
      Fields.u32("payloadChecksumCrc32c", payloadChecksumCrc32c);
    }

    @Override
    public int command() {
      return COMMAND;
    }
  }

  /**
   * Command 52 relocationState: one chunk of the stream; chunks may split at any byte (spec 001 section 4.2).
   *
   * @param identity the relocation identity.
   * @param senderRole normally {@link Role#SOURCE}.
   * @param object the object.
   * @param chunkOrdinal 0..2^32-1, counted from 0.
   * @param chunk the chunk bytes, copied in and out.
   */
  record State(RelocationIdentity identity, Role senderRole, ObjectIdentity object, long chunkOrdinal,
      byte[] chunk) implements RelocationFrame {

    /** The command number. */
    public static final int COMMAND = 52;

    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public State {
      Fields.present("identity", identity);
      Fields.present("senderRole", senderRole);
      Fields.present("object", object);
      Fields.u32("chunkOrdinal", chunkOrdinal);
      chunk = Fields.present("chunk", chunk).clone();
    }

    /**
     * The chunk bytes.
     *
     * @return a copy.
     */
    @Override
    public byte[] chunk() {
      return chunk.clone();
    }

    /** The bytes without a copy, for the assembler's own single copy. */
    byte[] chunkUnsafe() {
      return chunk;
    }

    @Override
    public int command() {
      return COMMAND;
    }

    @Override
    public boolean equals(final Object o) {
      return o instanceof State s && identity.equals(s.identity) && senderRole == s.senderRole
          && object.equals(s.object) && chunkOrdinal == s.chunkOrdinal && Arrays.equals(chunk, s.chunk);
    }

    @Override
    public int hashCode() {
      return Objects.hash(identity, senderRole, object, chunkOrdinal, Arrays.hashCode(chunk));
    }

    @Override
    public String toString() {
      return "State[" + identity + ", " + senderRole + ", " + object + ", chunkOrdinal=" + chunkOrdinal + ", "
          + chunk.length + " bytes]";
    }
  }

  /**
   * Command 53 relocationFailed: the target's explicit failure reply to 40 (spec 001 sections 4.3 and 9).
   *
   * @param identity the relocation identity of the 40 it answers.
   * @param targetFence the target fence.
   * @param object the object.
   * @param senderRole normally {@link Role#TARGET}.
   * @param failureCode the failure code, 1..2^32-1 (35 is relocation data lost).
   */
  record Failed(RelocationIdentity identity, TargetFence targetFence, ObjectIdentity object, Role senderRole,
      long failureCode) implements RelocationFrame {

    /** The command number. */
    public static final int COMMAND = 53;

    /** Failure code 35, relocation data lost: the fixture's value, used for checksum and length mismatch. */
    public static final long RELOCATION_DATA_LOST = 35;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the bad field.
     */
    public Failed {
      Fields.present("identity", identity);
      Fields.present("targetFence", targetFence);
      Fields.present("object", object);
      Fields.present("senderRole", senderRole);
      if (failureCode < 1 || failureCode > Fields.U32_MAX) {
        throw new IllegalArgumentException("failureCode " + failureCode + " must be in 1..4294967295");
      }
    }

    @Override
    public int command() {
      return COMMAND;
    }
  }
}
