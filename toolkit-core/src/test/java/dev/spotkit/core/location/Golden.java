package dev.spotkit.core.location;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Loads the golden fixtures of {@code shared/fixtures/golden/}, copied unchanged into the test resources. */
final class Golden {
  private Golden() {
  }

  static JsonNode load(final String name) {
    try (InputStream in = Golden.class.getResourceAsStream("golden/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource golden/" + name);
      }
      return new ObjectMapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
