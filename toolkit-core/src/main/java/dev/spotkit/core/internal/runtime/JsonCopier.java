package dev.spotkit.core.internal.runtime;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.MapperConfig;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.jsontype.PolymorphicTypeValidator;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.spotkit.core.EmptyRequest;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.relocation.wire.ApplicationPayload;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default message codec (DESIGN.md "Messaging"): JSON through Jackson, so a record needs no extra code. It
 * makes the immutable copies of join and creation requests the spec asks for (spec 000 sections 2 and 4), and
 * encodes messages and replies that cross nodes. Thread-safe.
 *
 * <p><b>What crosses nodes.</b> A message is found on the peer by its class name, so it must be a record, an
 * enum, a String or a boxed primitive; its fields may be records, enums, Strings, boxed primitives, the
 * collections and maps of {@code java.util}, {@code Optional}, {@code java.time} values, {@code UUID} and
 * {@code java.math} numbers. A field declared {@code Object} keeps its runtime type (the JSON carries the class
 * name, checked against the same list on decode), so a value arrives as the same type it was sent as. A value
 * that would arrive different (or not at all) is refused at the sender with InvalidOperation: it is never
 * delivered changed and never lost on the peer.
 */
public final class JsonCopier {

  /** A copy and its encoded size. */
  public record Copy(Object value, int bytes) {
  }

  /** Content type of messages encoded here. */
  public static final String JSON = "application/json";
  /** At most this many message classes are cached by name (only classes that exist and may cross). */
  private static final int MAX_CACHED_CLASSES = 4096;

  private final ObjectMapper mapper = JsonMapper.builder()
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
      .addModule(new Jdk8Module()).addModule(new JavaTimeModule())
      .activateDefaultTyping(new CrossingTypes(), ObjectMapper.DefaultTyping.JAVA_LANG_OBJECT)
      .build();
  /** Message classes by name, for decoding values from peers; filled on first use of each name. */
  private final ConcurrentHashMap<String, Class<?>> classes = new ConcurrentHashMap<>();

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
  public Copy copy(final String what, final Object value, final int limit) {
    if (value == null || value instanceof EmptyRequest) {
      return new Copy(EmptyRequest.INSTANCE, 0);
    }
    final byte[] bytes = bytes(what, value, limit, " per request; send large data as messages instead");
    try {
      return new Copy(mapper.readValue(bytes, value.getClass()), bytes.length);
    } catch (Exception e) {
      throw new SpotkitException.InvalidOperation(what + " of type " + value.getClass().getName()
          + " cannot be decoded by the JSON message codec (" + e.getMessage() + "); use a record of plain"
          + " values", e);
    }
  }

  /**
   * Encodes a value stored for this node or a peer (a creation request, a creation reply, a first message):
   * the class name as packet name, JSON bytes as payload.
   *
   * @param what e.g. "creation request"; used in errors.
   * @param value the value; not null.
   * @param limit largest accepted encoded size in bytes.
   * @return the payload envelope.
   * @throws SpotkitException.InvalidOperation when the value cannot cross nodes (see the class notes).
   * @throws SpotkitException.CapacityExceeded when the encoding is over {@code limit}.
   */
  public ApplicationPayload encode(final String what, final Object value, final int limit) {
    return encodeForPeer(what, value, limit, true);
  }

  /**
   * Encodes a message or reply that will be decoded on another node, and proves here first that it decodes back
   * into an equal value of the same class, so a value the codec cannot carry (a lambda, a thread, a socket, a
   * map standing in for a record) fails at the sender with a typed error instead of arriving changed or being
   * lost on the peer.
   *
   * @param what e.g. "message"; used in errors.
   * @param value the value; not null.
   * @param limit largest accepted encoded size in bytes.
   * @param byName true when the peer finds the class by name (a message); false for a reply, which may also be
   *     a {@code java.util} list, set or map of crossing values.
   * @return the payload envelope; its packet name is the value's class (an enum constant's declaring class).
   * @throws SpotkitException.InvalidOperation when the value cannot make the round trip unchanged, or is not of a
   *     type that crosses nodes.
   * @throws SpotkitException.CapacityExceeded when the encoding is over {@code limit}.
   */
  public ApplicationPayload encodeForPeer(final String what, final Object value, final int limit,
      final boolean byName) {
    final Class<?> type = value instanceof Enum<?> constant ? constant.getDeclaringClass() : value.getClass();
    if (!crossesByName(type) && (byName || container(type) == null)) {
      throw new SpotkitException.InvalidOperation(what + " of type " + type.getName() + " cannot be sent to"
          + " another node: what crosses nodes is a record, an enum, a String or a boxed primitive"
          + (byName ? "" : ", or a java.util list, set or map of those") + " (README \"Writing actors\")");
    }
    final byte[] bytes = bytes(what, value, limit);
    final Object back;
    try {
      back = mapper.readValue(bytes, decodeType(type));
    } catch (Exception e) {
      throw new SpotkitException.InvalidOperation(what + " of type " + type.getName() + " does not survive the"
          + " JSON message codec (" + e.getMessage() + "); a peer could not decode it. Use a record of plain"
          + " values (README \"Writing actors\")", e);
    }
    if (!back.equals(value) && !Arrays.equals(bytes(what, back, Integer.MAX_VALUE), bytes)) {
      throw new SpotkitException.InvalidOperation(what + " of type " + type.getName() + " does not survive the"
          + " JSON message codec unchanged (it would arrive as " + back + "); use fields of crossing types"
          + " (README \"Writing actors\")");
    }
    return new ApplicationPayload(type.getName(), JSON, bytes);
  }

  /** Types found by name on a peer: records, enums, String and boxed primitives; nothing else. */
  static boolean crossesByName(final Class<?> type) {
    return type.isRecord() || type.isEnum() || type == String.class || type == Boolean.class
        || type == Character.class || (Number.class.isAssignableFrom(type) && type.getName().startsWith("java.lang."));
  }

  /** The interface a java.util container decodes as, or null when {@code type} is none. */
  private static Class<?> container(final Class<?> type) {
    if (!type.getName().startsWith("java.util.")) {
      return null;
    }
    if (List.class.isAssignableFrom(type)) {
      return List.class;
    }
    if (Set.class.isAssignableFrom(type)) {
      return Set.class;
    }
    if (Map.class.isAssignableFrom(type)) {
      return Map.class;
    }
    return Collection.class.isAssignableFrom(type) ? List.class : null;
  }

  private static Class<?> decodeType(final Class<?> type) {
    final Class<?> container = container(type);
    return container != null ? container : type;
  }

  private byte[] bytes(final String what, final Object value, final int limit) {
    return bytes(what, value, limit, " of one mesh frame");
  }

  private byte[] bytes(final String what, final Object value, final int limit, final String limitName) {
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
          + "-byte limit" + limitName);
    }
    return bytes;
  }

  /**
   * Decodes a message from a peer into the class its packet name names (loaded by the framework's class
   * loader; only the crossing types; peers are authenticated by the cluster secret before any frame is read).
   *
   * @param payload the envelope.
   * @return the message.
   * @throws SpotkitException.InvalidOperation when the class is unknown, not a crossing type, or the bytes do not
   *     decode.
   */
  public Object decode(final ApplicationPayload payload) {
    return decode(payload, named(payload.packetName(), true));
  }

  /**
   * Decodes a reply from a peer into the type it was sent as (its packet name), so the caller's expected type is
   * checked exactly as on one node (a reply of another type is TypeMismatch, never converted). A java.util
   * container decodes as its interface.
   *
   * @param payload the envelope.
   * @return the reply.
   * @throws SpotkitException.InvalidOperation when the named type is unknown or not a crossing type.
   */
  public Object decodeReply(final ApplicationPayload payload) {
    return decode(payload, named(payload.packetName(), false));
  }

  private Class<?> named(final String name, final boolean byName) {
    Class<?> type = classes.get(name);
    if (type != null) {
      return type;
    }
    try {
      type = Class.forName(name, false, JsonCopier.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new SpotkitException.InvalidOperation("type '" + name + "' is not known on this node; deploy the same"
          + " message classes on every node of the mesh");
    }
    if (!crossesByName(type)) { // never instantiate arbitrary classes a peer names
      final Class<?> container = byName ? null : container(type);
      if (container == null) {
        throw new SpotkitException.InvalidOperation("type '" + name + "' does not cross nodes (a record, enum,"
            + " String or boxed primitive" + (byName ? "" : ", or a java.util container") + "); refused");
      }
      type = container;
    }
    if (classes.size() < MAX_CACHED_CLASSES) {
      classes.putIfAbsent(name, type);
    }
    return type;
  }

  /**
   * Decodes a payload into a given type.
   *
   * @param payload the envelope.
   * @param type the type.
   * @param <T> the type.
   * @return the value.
   * @throws SpotkitException.TypeMismatch when the bytes do not decode into {@code type}.
   */
  public <T> T decode(final ApplicationPayload payload, final Class<T> type) {
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
   * Which runtime types a field declared {@code Object} may carry: the same crossing types as messages, plus
   * java.util containers, Optional, java.time values, UUID and java.math numbers; everything else is refused
   * (no class a peer names is instantiated unless it is one of these).
   */
  private static final class CrossingTypes extends PolymorphicTypeValidator.Base {
    private static final long serialVersionUID = 1L;

    @Override
    public Validity validateSubClassName(final MapperConfig<?> config, final JavaType baseType,
        final String subClassName) {
      return Validity.INDETERMINATE;
    }

    @Override
    public Validity validateSubType(final MapperConfig<?> config, final JavaType baseType, final JavaType subType) {
      final Class<?> type = subType.getRawClass();
      final String name = type.getName();
      final boolean allowed = crossesByName(type) || container(type) != null || type == java.util.Optional.class
          || type == java.util.UUID.class || name.startsWith("java.time.") || name.startsWith("java.math.");
      return allowed ? Validity.ALLOWED : Validity.DENIED;
    }

    @Override
    public Validity validateBaseType(final MapperConfig<?> config, final JavaType baseType) {
      return Validity.INDETERMINATE;
    }
  }
}
