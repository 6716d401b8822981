package dev.spotkit.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.spotkit.examples.chat.ChatServerCommandAccess;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Field;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The command line: help texts format cleanly, bad ports are one line and exit code 2. */
class CommandLineTest {

  @Test
  void everyHelpTextIsAValidFormatString() {
    // picocli formats the annotation texts with String.format: a bare '%' prints "[picocli WARN] Could not
    // format ..." and the raw text. Check the raw annotation texts, as picocli gets them.
    final CommandLine top = new CommandLine(new SpotkitExamples());
    int checked = 0;
    for (CommandLine command : top.getSubcommands().values()) {
      final Class<?> type = command.getCommandSpec().userObject().getClass();
      final Command about = type.getAnnotation(Command.class);
      final List<String> texts = new ArrayList<>(List.of(about.description()));
      for (Field field : type.getDeclaredFields()) {
        final Option option = field.getAnnotation(Option.class);
        if (option != null) {
          texts.addAll(List.of(option.description()));
        }
      }
      for (String text : texts) {
        assertThatCode(() -> String.format(text)).as(command.getCommandName() + ": " + text)
            .doesNotThrowAnyException();
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(10);
    assertThat(top.getSubcommands().get("chat-bots").getUsageMessage()).contains("bot i joins room i % R");
  }

  @Test
  void aPortOutOfRangeIsOneErrorLineAndExitCodeTwo() {
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final int code = ChatServerCommandAccess.run(new PrintStream(err, true, StandardCharsets.UTF_8),
        "--port", "99999");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("chat-server: --port 99999 must be between 0 and 65535 (0 = a free port)"
            + System.lineSeparator());
  }

  @Test
  void aPortInUseIsOneErrorLineAndExitCodeTwo() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
      final ByteArrayOutputStream err = new ByteArrayOutputStream();
      // Bounded: were the bind to succeed, the server would serve until the process ends.
      final int code = CompletableFuture.supplyAsync(() -> ChatServerCommandAccess.run(
          new PrintStream(err, true, StandardCharsets.UTF_8), "--port", Integer.toString(taken.getLocalPort())))
          .get(20, TimeUnit.SECONDS);
      assertThat(code).isEqualTo(2);
      final String text = err.toString(StandardCharsets.UTF_8);
      assertThat(text).startsWith("chat-server: session listener could not start: cannot bind session listener to"
          + " 127.0.0.1:" + taken.getLocalPort() + ": ").contains("in use").endsWith(System.lineSeparator());
      assertThat(text.lines()).hasSize(1);
    }
  }
}
