package dev.spotkit.relocation;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Spec 001 section 11: drain-to-empty, per-message ACKs, numeric high-water marks, a delivery journal and
 * relocation-only capacity gates are not part of this handoff. Scans the module's main sources (comments and
 * Javadoc removed) for identifiers that would implement them.
 */
class ForbiddenTechniquesTest {
  private static final Pattern FORBIDDEN = Pattern.compile("\\b[aA]ck(s|ed|Id|Message|Timeout)?\\b|[hH]igh_?[wW]ater"
      + "|\\bHWM\\b|\\bhwm\\b|[jJ]ournal|drainToEmpty|awaitEmpty|waitForEmpty|maxRelay|relayLimit|maxUnits|unitLimit"
      + "|capacityGate|maxHeld|holdLimit");

  @Test
  @Spec("REL-25")
  void noForbiddenTechniqueAppearsInTheMainSources() throws IOException {
    final List<String> hits = new ArrayList<>();
    try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
      for (final Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        final String code = Files.readString(file).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
        final var m = FORBIDDEN.matcher(code);
        while (m.find()) {
          hits.add(file.getFileName() + ": " + m.group());
        }
      }
    }
    assertThat(hits).isEmpty();
    for (final String bad : List.of("long highWater;", "void ack(int n)", "int relayLimit = 10;", "Journal j;")) {
      assertThat(FORBIDDEN.matcher(bad).find()).as(bad).isTrue(); // The scan can fail.
    }
  }

  @Test
  void theOnlyByteLimitIsTheInFlightBudgetAndItNeverFailsAUnit() {
    // The hold has no bound: 10,000 held messages are relayed in order and the budget only delays chunks.
    final SourceUnit unit = new SourceUnit(Fixtures.ID, Fixtures.OBJECT, 1, Fixtures.SETTINGS,
        new InFlightBudget(4, null), false, 0);
    unit.handle(new SourceEvent.StartRequested());
    unit.handle(new SourceEvent.PayloadCaptured(new byte[64]));
    for (int i = 0; i < 10_000; i++) {
      unit.handle(new SourceEvent.MessageArrived(Fixtures.send(i)));
    }
    assertThat(Fixtures.frames(unit.handle(new SourceEvent.RelayReadyArrived(Fixtures.ID)))).hasSize(10_001);
  }
}
