package dev.spotkit.core.location;

import dev.spotkit.store.StoreBytes;
import java.util.Objects;

/**
 * The final result of one remote creation operation (spec 002 section 7 "Stored final result"; MEM-04..06,
 * LOC-10, LOC-11), stored at {@link LocationKeys#creationTerminal} in the same batch as the Ready commit or the
 * abort, kept until 5 minutes after the operation's deadline. It replays the same result to the same request
 * (source NodeRid, source host run generation, OperationId); network correlation and reply route are not
 * stored. Canonical JSON: {@code {"recordVersion":1,"result":"created|rejected|failed",
 * "objectGeneration":"...","reply":base64 or null,"errorKind":... or null,"errorMessage":... or null}}.
 *
 * @param result the outcome.
 * @param objectGeneration the created incarnation's ObjectGeneration (created), else 0.
 * @param reply the application reply as an application-payload-envelope-v1 (created or rejected), or null.
 * @param errorKind the typed error's kind name (failed), or null.
 * @param errorMessage the typed error's message (failed), or null.
 */
public record CreationTerminalRecord(Result result, long objectGeneration, byte[] reply, String errorKind,
    String errorMessage) {
  private static final String NAME = "creation terminal record";
  /** Largest stored final result (spec 002 section 7): 1,048,576 bytes. */
  public static final int MAX_BYTES = 1 << 20;

  /** The three final results. */
  public enum Result implements RecordJson.WireEnum {
    /** Created: Ready and committed. */
    CREATED("created"),
    /** The application declined. */
    REJECTED("rejected"),
    /** A callback or factory threw (a typed Failed). */
    FAILED("failed");

    private final String wire;

    Result(final String wire) {
      this.wire = wire;
    }

    @Override
    public String wire() {
      return wire;
    }
  }

  /**
   * Checks the shape.
   *
   * @throws NullPointerException when result is null.
   * @throws IllegalArgumentException when a created result has no generation.
   */
  public CreationTerminalRecord {
    Objects.requireNonNull(result, "result");
    if (result == Result.CREATED && objectGeneration <= 0) {
      throw new IllegalArgumentException("a created result names its ObjectGeneration");
    }
    reply = reply == null ? null : reply.clone();
  }

  /**
   * The canonical JSON bytes.
   *
   * @return the value to store.
   */
  public StoreBytes encode() {
    return StoreBytes.of(RecordJson.write(g -> {
      g.writeStartObject();
      g.writeNumberField("recordVersion", RecordJson.RECORD_VERSION);
      g.writeStringField("result", result.wire());
      RecordJson.u64(g, "objectGeneration", objectGeneration);
      RecordJson.nullableString(g, "reply", reply == null ? null : RecordJson.base64(reply));
      RecordJson.nullableString(g, "errorKind", errorKind);
      RecordJson.nullableString(g, "errorMessage", errorMessage);
      g.writeEndObject();
    }));
  }

  /**
   * Reads a stored value.
   *
   * @param bytes the stored bytes.
   * @return the record.
   * @throws RecordDecodeException.UnknownVersion when recordVersion is not 1.
   * @throws RecordDecodeException.Malformed when the shape is wrong.
   */
  public static CreationTerminalRecord decode(final StoreBytes bytes) {
    return RecordJson.read(NAME, bytes.toByteArray(), n -> new CreationTerminalRecord(
        n.enumValue("result", Result.class), n.u64("objectGeneration", 0),
        n.nullableString("reply") == null ? null : n.base64("reply"), n.nullableString("errorKind"),
        n.nullableString("errorMessage")));
  }
}
