package dev.spotkit.core.location;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.function.Function;

/**
 * Canonical JSON of the location records (spec 002 section 3.4; FACTS.md "Redis layout"): compact (no
 * whitespace), fields in the fixed order each record writes them, 64-bit generations, revisions and timestamps as
 * JSON strings of canonical decimals, weights, limits and counts as JSON numbers, bytes as standard base64 with
 * padding, UTF-8 output with non-ASCII characters unescaped. Writing uses jackson-core's {@link JsonGenerator};
 * reading parses a tree with duplicate-field detection and checks {@code recordVersion} before anything else.
 */
final class RecordJson {
  /** The only recordVersion this build writes and reads. */
  static final int RECORD_VERSION = 1;

  private static final JsonFactory FACTORY = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
  private static final ObjectMapper MAPPER = new ObjectMapper(FACTORY);

  /** Writes one JSON document. */
  interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private RecordJson() {
  }

  static byte[] write(final Body body) {
    final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return out.toByteArray();
  }

  static void u64(final JsonGenerator g, final String field, final long value) throws IOException {
    g.writeStringField(field, Long.toString(value));
  }

  static void nullableString(final JsonGenerator g, final String field, final String value) throws IOException {
    if (value == null) {
      g.writeNullField(field);
    } else {
      g.writeStringField(field, value);
    }
  }

  /**
   * Whether {@code text} is a canonical decimal of a 64-bit value's digits: {@code 0|[1-9][0-9]{0,18}}, checked by
   * hand (a regular expression compiled per field was most of an aggregate move's record-decoding allocation).
   */
  static boolean canonicalDecimal(final String text) {
    final int n = text.length();
    if (n == 0 || n > 19 || n > 1 && text.charAt(0) == '0') {
      return false;
    }
    for (int i = 0; i < n; i++) {
      final char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  static String base64(final byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /** Parses {@code bytes} and checks {@code recordVersion}; then hands the root to {@code reader}. */
  static <T> T read(final String record, final byte[] bytes, final Function<Node, T> reader) {
    final JsonNode root;
    try (JsonParser parser = FACTORY.createParser(bytes)) {
      root = MAPPER.readTree(parser);
      if (parser.nextToken() != null) {
        throw new RecordDecodeException.Malformed(record + " has bytes after its JSON value", null);
      }
    } catch (IOException e) {
      throw new RecordDecodeException.Malformed(record + " is not valid JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new RecordDecodeException.Malformed(record + " is not a JSON object", null);
    }
    final JsonNode version = root.get("recordVersion");
    if (version == null || !version.isIntegralNumber()) {
      throw new RecordDecodeException.Malformed(record + " has no integer recordVersion", null);
    }
    if (!version.canConvertToLong() || version.longValue() != RECORD_VERSION) {
      throw new RecordDecodeException.UnknownVersion(record, version.canConvertToLong() ? version.longValue()
          : Long.MAX_VALUE);
    }
    return reader.apply(new Node(record, root));
  }

  /** A JSON object with its path, for messages that say where a field is wrong. */
  record Node(String path, JsonNode json) {

    private JsonNode field(final String name) {
      final JsonNode value = json.get(name);
      if (value == null) {
        throw malformed(name, "is missing");
      }
      return value;
    }

    RecordDecodeException.Malformed malformed(final String name, final String why) {
      return new RecordDecodeException.Malformed(path + "." + name + " " + why, null);
    }

    String string(final String name) {
      final JsonNode value = field(name);
      if (!value.isTextual()) {
        throw malformed(name, "is not a string");
      }
      return value.textValue();
    }

    String nullableString(final String name) {
      return field(name).isNull() ? null : string(name);
    }

    /** A 64-bit value written as a canonical decimal string, at least {@code min}. */
    long u64(final String name, final long min) {
      final String text = string(name);
      if (!canonicalDecimal(text)) {
        throw malformed(name, "'" + text + "' is not a canonical decimal");
      }
      final long value;
      try {
        value = Long.parseLong(text);
      } catch (NumberFormatException e) {
        throw malformed(name, "'" + text + "' is above 2^63-1");
      }
      if (value < min) {
        throw malformed(name, "'" + text + "' is below " + min);
      }
      return value;
    }

    /** A JSON integer in {@code min..max}. */
    int integer(final String name, final int min, final int max) {
      final JsonNode value = field(name);
      if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < min || value.intValue() > max) {
        throw malformed(name, "is not an integer in " + min + ".." + max);
      }
      return value.intValue();
    }

    boolean bool(final String name) {
      final JsonNode value = field(name);
      if (!value.isBoolean()) {
        throw malformed(name, "is not a boolean");
      }
      return value.booleanValue();
    }

    byte[] base64(final String name) {
      try {
        return Base64.getDecoder().decode(string(name));
      } catch (IllegalArgumentException e) {
        throw malformed(name, "is not base64");
      }
    }

    Node object(final String name) {
      final JsonNode value = field(name);
      if (!value.isObject()) {
        throw malformed(name, "is not an object");
      }
      return new Node(path + "." + name, value);
    }

    Node nullableObject(final String name) {
      return field(name).isNull() ? null : object(name);
    }

    java.util.List<Node> array(final String name) {
      final JsonNode value = field(name);
      if (!value.isArray()) {
        throw malformed(name, "is not an array");
      }
      final java.util.List<Node> out = new java.util.ArrayList<>();
      for (int i = 0; i < value.size(); i++) {
        if (!value.get(i).isObject()) {
          throw malformed(name + "[" + i + "]", "is not an object");
        }
        out.add(new Node(path + "." + name + "[" + i + "]", value.get(i)));
      }
      return out;
    }

    java.util.Set<java.util.Map.Entry<String, JsonNode>> fields() {
      return json.properties();
    }

    <E extends Enum<E> & WireEnum> E enumValue(final String name, final Class<E> type) {
      final String text = string(name);
      for (E constant : type.getEnumConstants()) {
        if (constant.wire().equals(text)) {
          return constant;
        }
      }
      throw malformed(name, "'" + text + "' is not one of the known values");
    }
  }

  /** An enum with a fixed wire spelling. */
  interface WireEnum {
    String wire();
  }
}
