package dev.spotkit.relocation;

import java.util.Arrays;
import java.util.Objects;

/**
 * One accepted unit of work as relocation sees it: a {@code send} or a {@code request} with its operation identity,
 * reply route and absolute deadline kept unchanged through hold, relay, backlog and Message Follow (spec 001
 * section 5.2). The body is the record's bytes as carried in command 31 relocationData (the wire's
 * {@link dev.spotkit.relocation.wire.FrozenRecord#encode()}), opaque to this package except that the cutover
 * checksum is computed over it ({@link RelayChecksum}). Equality is by value, body included.
 *
 * @param kind send or request.
 * @param operationId the request's operation id, 0 for a send.
 * @param replyRouteId the request's reply route, 0 for a send.
 * @param deadlineMs the request's absolute deadline in ms on the caller's clock, 0 for none (a send).
 * @param body the command 31 record bytes; the record keeps its own copy.
 */
public record Message(Kind kind, long operationId, long replyRouteId, long deadlineMs, byte[] body) {
  /** Whether the work has an application reply (spec 001 section 5.2). */
  public enum Kind {
    /** One-way: no application response. */
    SEND,
    /** Request: keeps operation identity, reply route and deadline. */
    REQUEST
  }

  /**
   * Validates and copies the body.
   *
   * @throws IllegalArgumentException when a send carries request fields or a request lacks an operation id or
   *     reply route.
   */
  public Message {
    Objects.requireNonNull(kind, "kind");
    body = Objects.requireNonNull(body, "body").clone();
    if (kind == Kind.SEND && (operationId != 0 || replyRouteId != 0)) {
      throw new IllegalArgumentException("a send carries no operationId or replyRouteId (spec 001 section 5.2)");
    }
    if (kind == Kind.REQUEST && (operationId == 0 || replyRouteId == 0)) {
      throw new IllegalArgumentException("a request needs a non-zero operationId and replyRouteId");
    }
  }

  /**
   * A one-way message.
   *
   * @param body the opaque body (copied).
   * @return the send.
   */
  public static Message send(final byte[] body) {
    return new Message(Kind.SEND, 0, 0, 0, body);
  }

  /**
   * A request.
   *
   * @param operationId non-zero operation id.
   * @param replyRouteId non-zero reply route.
   * @param deadlineMs absolute deadline in ms.
   * @param body the opaque body (copied).
   * @return the request.
   */
  public static Message request(final long operationId, final long replyRouteId, final long deadlineMs,
      final byte[] body) {
    return new Message(Kind.REQUEST, operationId, replyRouteId, deadlineMs, body);
  }

  /**
   * A copy of the body.
   *
   * @return the body bytes (a fresh copy).
   */
  @Override
  public byte[] body() {
    return body.clone();
  }

  @Override
  public boolean equals(final Object o) {
    return o instanceof Message m && m.kind == kind && m.operationId == operationId
        && m.replyRouteId == replyRouteId && m.deadlineMs == deadlineMs && Arrays.equals(m.body, body);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, operationId, replyRouteId, deadlineMs) * 31 + Arrays.hashCode(body);
  }

  @Override
  public String toString() {
    return "Message[" + kind + ", op=" + operationId + ", route=" + replyRouteId + ", deadline=" + deadlineMs
        + ", body=" + body.length + " bytes]";
  }

  /** Body length without copying. */
  int bodyLength() {
    return body.length;
  }

  /** Body without copying, for checksum computation inside this package. */
  byte[] bodyUnsafe() {
    return body;
  }
}
