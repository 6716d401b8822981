package dev.spotkit.relocation.wire;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One frozen work record (spec 001 section 4.2): an entry of the envelope's savedWork vector, and the body of a
 * command 31 relocationData relay. It keeps the request's operation identity and reply route. Layout:
 *
 * <pre>
 *   recordKind     u8     6 spotRequest (the only kind with a body layout here, see {@link RecordBody})
 *   source         union, see {@link RecordSource}
 *   metadata       u8 0 (absent) | u8 1, u32 length, bytes     (present form: Spotkit's choice, see below)
 *   operationId    u64 high, u64 low, not both zero
 *   operationKind  u32    mesh-operation-kind (3 spot request, ...)
 *   replyRoute     u16 length: 0 = no reply route (one-way send) | 8 = replyRouteId nonzero-u64
 *   body           the record-kind body
 * </pre>
 *
 * <p>Note: the golden vectors only show absent metadata and an 8-byte reply route. The present-metadata form
 * (u32 length then opaque bytes) is Spotkit's decision; any other presence byte or reply-route length is
 * {@link WireError#INVALID_FIELD}.
 *
 * @param source who sent the record.
 * @param metadata the optional metadata bytes, or null when absent; copied.
 * @param operationId the operation identity.
 * @param operationKind the mesh-operation-kind, 0..2^32-1.
 * @param replyRouteId the reply route id, 1..2^63-1, or 0 when the record has no reply route.
 * @param body the record-kind body; its {@link RecordBody#recordKind()} is the record kind.
 */
public record FrozenRecord(RecordSource source, byte[] metadata, OperationId operationId, long operationKind,
    long replyRouteId, RecordBody body) {

  /**
   * Validates and copies.
   *
   * @throws IllegalArgumentException naming the bad field.
   */
  public FrozenRecord {
    Fields.present("source", source);
    metadata = metadata == null ? null : metadata.clone();
    Fields.present("operationId", operationId);
    Fields.u32("operationKind", operationKind);
    if (replyRouteId < 0) {
      throw new IllegalArgumentException("replyRouteId " + Long.toUnsignedString(replyRouteId)
          + " must be 0 (none) or in " + Fields.NONZERO_U64_RANGE);
    }
    Fields.present("body", body);
  }

  /**
   * The metadata.
   *
   * @return a copy, or null when absent.
   */
  @Override
  public byte[] metadata() {
    return metadata == null ? null : metadata.clone();
  }

  /**
   * The record kind.
   *
   * @return the body's kind, e.g. 6.
   */
  public int recordKind() {
    return body.recordKind();
  }

  /**
   * The record's own encoding: exactly the bytes that end a command 31 relocationData body after its sender role
   * and object (and an entry of the envelope's savedWork vector after its participantId and order). The cutover's
   * boundaryChecksumCrc32c is computed over these bytes, record by record in relay order.
   *
   * @return a fresh array.
   */
  public byte[] encode() {
    final WireOut out = new WireOut(64);
    writeTo(out);
    return out.toByteArray();
  }

  void writeTo(final WireOut out) {
    out.u8(body.recordKind());
    out.u8(source.kind());
    final int lengthAt = out.position();
    out.u16(0);
    final int start = out.position();
    switch (source) {
      case RecordSource.Node n -> {
        out.rid(n.nodeRid());
        out.u64(n.nodeGeneration());
        out.text8(n.ownerId());
        out.u64(n.ownerLeaseGeneration());
      }
      case RecordSource.Opaque o -> out.bytes(o.body());
    }
    out.patchU16(lengthAt, out.position() - start);
    if (metadata == null) {
      out.u8(0);
    } else {
      out.u8(1);
      out.u32(metadata.length);
      out.bytes(metadata);
    }
    operationId.writeTo(out);
    out.u32(operationKind);
    if (replyRouteId == 0) {
      out.u16(0);
    } else {
      out.u16(8);
      out.u64(replyRouteId);
    }
    switch (body) {
      case RecordBody.SpotRequest r -> {
        r.targetSpot().writeTo(out);
        r.payload().writeTo(out);
      }
    }
  }

  static FrozenRecord read(final WireIn in, final String f) {
    final int kindAt = in.position();
    final int kind = in.u8(f + ".recordKind");
    if (kind != RecordBody.SpotRequest.KIND) {
      throw in.error(WireError.INVALID_FIELD, f + ".recordKind", kindAt, "value " + kind,
          "6 (spotRequest)");
    }
    final RecordSource source = readSource(in, f + ".source");
    final int metadataAt = in.position();
    final int present = in.u8(f + ".metadata.present");
    byte[] metadata = null;
    if (present == 1) {
      final long length = in.u32(f + ".metadata.length");
      metadata = in.bytes(f + ".metadata", length);
    } else if (present != 0) {
      throw in.error(WireError.INVALID_FIELD, f + ".metadata.present", metadataAt, "value " + present,
          "0 or 1");
    }
    final OperationId operation = OperationId.read(in, f + ".operationId");
    final long operationKind = in.u32(f + ".operationKind");
    final int routeAt = in.position();
    final int routeLength = in.u16(f + ".replyRoute.length");
    long route = 0;
    if (routeLength == 8) {
      route = in.nonZeroU64(f + ".replyRoute.replyRouteId");
    } else if (routeLength != 0) {
      throw in.error(WireError.INVALID_FIELD, f + ".replyRoute.length", routeAt, "value " + routeLength,
          "0 (none) or 8");
    }
    final TargetSpot target = TargetSpot.read(in, f + ".body.targetSpot");
    final ApplicationPayload payload = ApplicationPayload.read(in, f + ".body.payload");
    return new FrozenRecord(source, metadata, operation, operationKind, route,
        new RecordBody.SpotRequest(target, payload));
  }

  private static RecordSource readSource(final WireIn in, final String f) {
    final int kindAt = in.position();
    final int kind = in.u8(f + ".sourceKind");
    if (kind == 0) {
      throw in.error(WireError.INVALID_FIELD, f + ".sourceKind", kindAt, "value 0", "1..255");
    }
    final int lengthAt = in.position();
    final int length = in.u16(f + ".length");
    final int start = in.position();
    if (kind != 1) {
      return new RecordSource.Opaque(kind, in.bytes(f + ".body", length));
    }
    final Rid rid = in.rid(f + ".nodeRid");
    final long generation = in.nonZeroU64(f + ".nodeGeneration");
    final String owner = in.text8(f + ".ownerId");
    final long lease = in.nonZeroU64(f + ".ownerLeaseGeneration");
    in.endSection(f + ".length", lengthAt, start, length, WireError.INVALID_FIELD);
    return new RecordSource.Node(rid, generation, owner, lease);
  }

  @Override
  public boolean equals(final Object o) {
    return o instanceof FrozenRecord r && source.equals(r.source) && Arrays.equals(metadata, r.metadata)
        && operationId.equals(r.operationId) && operationKind == r.operationKind && replyRouteId == r.replyRouteId
        && body.equals(r.body);
  }

  @Override
  public int hashCode() {
    return Objects.hash(source, Arrays.hashCode(metadata), operationId, operationKind, replyRouteId, body);
  }

  @Override
  public String toString() {
    return "FrozenRecord[kind=" + body.recordKind() + ", source=" + source + ", metadata="
        + (metadata == null ? "none" : HexFormat.of().formatHex(metadata)) + ", operationId=" + operationId
        + ", operationKind=" + operationKind + ", replyRouteId=" + replyRouteId + ", body=" + body + "]";
  }
}
