package dev.spotkit.relocation.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HexFormat;

/**
 * Loads the golden fixtures (copies of shared/fixtures/golden) from the test classpath. Public for the session
 * tests in {@code dev.spotkit.relocation.session}.
 */
public final class Golden {

  private Golden() {
  }

  /**
   * One fixture file.
   *
   * @param name e.g. {@code session-relocation-barrier-v1.json}.
   * @return its JSON tree.
   */
  public static JsonNode load(final String name) {
    try (InputStream in = Golden.class.getResourceAsStream("/dev/spotkit/relocation/golden/" + name)) {
      if (in == null) {
        throw new IllegalStateException("fixture " + name + " missing from the test classpath");
      }
      return new ObjectMapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode control(final String vectorName) {
    for (JsonNode v : load("relocation-control-v1.json").get("canonical")) {
      if (v.get("name").asText().equals(vectorName)) {
        return v;
      }
    }
    throw new IllegalArgumentException("no vector " + vectorName);
  }

  /**
   * The {@code hex} field of a vector.
   *
   * @param vector a vector object.
   * @return its bytes.
   */
  public static byte[] hex(final JsonNode vector) {
    return HexFormat.of().parseHex(vector.get("hex").asText());
  }

  /**
   * Lowercase hex.
   *
   * @param bytes any bytes.
   * @return their hex.
   */
  public static String hex(final byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}
