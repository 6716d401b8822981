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
  /** At most this many message classes are cached by name (only classes that exist and may cross). */
  private static final int MAX_CACHED_CLASSES = 4096;
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
    return new ApplicationPayload(value.getClass().getName(), JSON, bytes(what, value, limit));
  }

  /**
   * Encodes a message or reply that will be decoded on another node, and proves it decodes back into its own
   * class here first, so a value the JSON codec cannot carry (a lambda, a thread, a socket) fails at the sender
   * with a typed error instead of being lost on the peer.
   *
   * @param what e.g. "message"; used in errors.
   * @param value the value; not null.
   * @param limit largest accepted encoded size in bytes.
   * @param byName true when the peer finds the class by name (a message), false when the caller names the type
   *     (a reply).
   * @return the payload envelope.
   * @throws SpotkitException.InvalidOperation when the value cannot make the round trip, or (by name) is not a
   *     record, an enum or a String/boxed primitive.
   * @throws SpotkitException.CapacityExceeded when the encoding is over {@code limit}.
   */
  ApplicationPayload encodeForPeer(final String what, final Object value, final int limit, final boolean byName) {
    if (byName && !crossesByName(value.getClass())) {
      throw new SpotkitException.InvalidOperation(what + " of type " + value.getClass().getName() + " cannot be"
          + " sent to another node: messages that cross nodes are records, enums, Strings or boxed primitives"
          + " (DESIGN.md \"Messaging\")");
    }
    final byte[] bytes = bytes(what, value, limit);
    try {
      mapper.readValue(bytes, value.getClass());
    } catch (Exception e) {
      throw new SpotkitException.InvalidOperation(what + " of type " + value.getClass().getName()
          + " does not survive the JSON message codec (" + e.getMessage() + "); a peer could not decode it."
          + " Use a record of plain values", e);
    }
    return new ApplicationPayload(value.getClass().getName(), JSON, bytes);
  }

  /** Types a peer may decode by name: records, enums, String and boxed primitives; nothing else. */
  static boolean crossesByName(final Class<?> type) {
    return type.isRecord() || type.isEnum() || type == String.class || type == Boolean.class
        || type == Character.class || (Number.class.isAssignableFrom(type) && type.getName().startsWith("java.lang."));
  }

  private byte[] bytes(final String what, final Object value, final int limit) {
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
    return bytes;
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
    Class<?> type = classes.get(payload.packetName());
    if (type == null) {
      try {
        type = Class.forName(payload.packetName(), false, JsonCopier.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        throw new SpotkitException.InvalidOperation("message type '" + payload.packetName() + "' is not known on"
            + " this node; deploy the same message classes on every node of the mesh");
      }
      if (!crossesByName(type)) { // never instantiate arbitrary classes a peer names
        throw new SpotkitException.InvalidOperation("message type '" + payload.packetName() + "' is not a record,"
            + " enum, String or boxed primitive; refused");
      }
      if (classes.size() < MAX_CACHED_CLASSES) {
        classes.putIfAbsent(payload.packetName(), type);
      }
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
