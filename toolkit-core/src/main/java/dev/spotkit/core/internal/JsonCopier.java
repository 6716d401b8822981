package dev.spotkit.core.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spotkit.core.EmptyRequest;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.wire.ApplicationPayload;

/**
 * Makes the immutable copy of a join or creation request that the spec asks for (spec 000 sections 2 and 4)
 * by a round trip through the default message codec: JSON via Jackson, so a record needs no extra code. The
 * encoded length is the size the limits apply to. Thread-safe.
 */
final class JsonCopier {

  /** A copy and its encoded size. */
  record Copy(Object value, int bytes) {
  }

  /** Content type of messages encoded here. */
  static final String JSON = "application/json";

  private final ObjectMapper mapper = new ObjectMapper()
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
  /** Message classes by name, for decoding messages from peers; filled on first use of each name. */
  private final java.util.concurrent.ConcurrentHashMap<String, Class<?>> classes =
      new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Encodes a message for a peer: the class name as packet name, JSON bytes as payload.
   *
   * @param what e.g. "message"; used in errors.
   * @param value the message; not null.
   * @param limit largest accepted encoded size in bytes.
   * @return the payload envelope.
   * @throws SpotkitException.InvalidOperation when the value cannot be encoded, or its class name is longer
   *     than 255 UTF-8 bytes.
   * @throws SpotkitException.CapacityExceeded when the encoding is over {@code limit}.
   */
  ApplicationPayload encode(final String what, final Object value, final int limit) {
    final byte[] bytes;
    try {
      bytes = mapper.writeValueAsBytes(value);
    } catch (Exception e) {
      throw new SpotkitException.InvalidOperation(what + " of type " + value.getClass().getName()
          + " cannot be encoded by the JSON message codec (" + e.getMessage() + "); use a record of plain"
          + " values", e);
    }
    if (bytes.length > limit) {
      throw new SpotkitException.CapacityExceeded(what + " of " + bytes.length + " bytes exceeds the " + limit
          + "-byte limit of one mesh frame");
    }
    return new ApplicationPayload(value.getClass().getName(), JSON, bytes);
  }

  /**
   * Decodes a message from a peer into the class its packet name names (loaded by the framework's class
   * loader; peers are authenticated by the cluster secret before any frame is read).
   *
   * @param payload the envelope.
   * @return the message.
   * @throws SpotkitException.InvalidOperation when the class is unknown or the bytes do not decode.
   */
  Object decode(final ApplicationPayload payload) {
    final Class<?> type = classes.computeIfAbsent(payload.packetName(), name -> {
      try {
        return Class.forName(name, false, JsonCopier.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        return Void.class;
      }
    });
    if (type == Void.class) {
      throw new SpotkitException.InvalidOperation("message type '" + payload.packetName() + "' is not known on"
          + " this node; deploy the same message classes on every node of the mesh");
    }
    return decode(payload, type);
  }

  /**
   * Decodes a payload into the type the caller expects (a reply).
   *
   * @param payload the envelope.
   * @param type the expected type.
   * @param <T> the type.
   * @return the value.
   * @throws SpotkitException.TypeMismatch when the bytes do not decode into {@code type}.
   */
  <T> T decode(final ApplicationPayload payload, final Class<T> type) {
    if (!JSON.equals(payload.contentType())) {
      throw new SpotkitException.InvalidOperation("content type '" + payload.contentType() + "' is not "
          + JSON);
    }
    try {
      return mapper.readValue(payload.payload(), type);
    } catch (Exception e) {
      throw new SpotkitException.TypeMismatch("a " + payload.packetName() + " from a peer does not decode as "
          + type.getName() + ": " + e.getMessage());
    }
  }

  /**
   * Copies {@code value}, checking its encoded size.
   *
   * @param what e.g. "join request"; used in messages.
   * @param value the request; null or {@link EmptyRequest} means none.
   * @param limit largest accepted encoded size in bytes.
   * @return the copy.
   * @throws SpotkitException.CapacityExceeded when over the limit.
   * @throws SpotkitException.InvalidOperation when the value cannot be encoded and decoded.
   */
  Copy copy(final String what, final Object value, final int limit) {
    if (value == null || value instanceof EmptyRequest) {
      return new Copy(EmptyRequest.INSTANCE, 0);
    }
    final byte[] bytes;
    try {
      bytes = mapper.writeValueAsBytes(value);
    } catch (Exception e) {
      throw new SpotkitException.InvalidOperation(what + " of type " + value.getClass().getName()
          + " cannot be encoded by the JSON message codec (" + e.getMessage() + "); use a record of plain"
          + " values", e);
    }
    if (bytes.length > limit) {
      throw new SpotkitException.CapacityExceeded(what + " of " + bytes.length + " bytes exceeds the " + limit
          + "-byte limit per request; send large data as messages instead");
    }
    try {
      return new Copy(mapper.readValue(bytes, value.getClass()), bytes.length);
    } catch (Exception e) {
      throw new SpotkitException.InvalidOperation(what + " of type " + value.getClass().getName()
          + " cannot be decoded by the JSON message codec (" + e.getMessage() + "); use a record of plain"
          + " values", e);
    }
  }
}
