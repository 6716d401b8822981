package dev.spotkit.core.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spotkit.core.EmptyRequest;
import dev.spotkit.core.SpotkitException;

/**
 * Makes the immutable copy of a join or creation request that the spec asks for (spec 000 sections 2 and 4)
 * by a round trip through the default message codec: JSON via Jackson, so a record needs no extra code. The
 * encoded length is the size the limits apply to. Thread-safe.
 */
final class JsonCopier {

  /** A copy and its encoded size. */
  record Copy(Object value, int bytes) {
  }

  private final ObjectMapper mapper = new ObjectMapper()
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

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
