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
  void aHostThatIsNoAddressOfThisMachineIsOneErrorLineWithoutPortAdvice() {
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final int code = ChatServerCommandAccess.run(new PrintStream(err, true, StandardCharsets.UTF_8),
        "--host", "999.1.1.1", "--port", "0");
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("chat-server: --host 999.1.1.1 is not an address or a"
        + " known host name; e.g. 127.0.0.1, or 0.0.0.0 for every interface" + System.lineSeparator());
    final ByteArrayOutputStream remote = new ByteArrayOutputStream();
    assertThat(ChatServerCommandAccess.run(new PrintStream(remote, true, StandardCharsets.UTF_8),
        "--host", "192.0.2.1", "--port", "0")).isEqualTo(2); // TEST-NET-1: never this machine's
    assertThat(remote.toString(StandardCharsets.UTF_8)).contains("is not an address of this machine")
        .doesNotContain("port");
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

  @Test
  void oneNodePerProcessOptionsAreCheckedBeforeAnythingStartsAndExitTwo() throws Exception {
    assertThat(serverErrors("--node-index", "1")).isEqualTo("chat-server: --node-index runs one node of a mesh"
        + " whose nodes are separate processes: it needs the store they share, --store redis://HOST:PORT"
        + System.lineSeparator());
    assertThat(serverErrors("--store", "redis://10.0.0.9:6379")).isEqualTo("chat-server: one node per process"
        + " needs the mesh's cluster secret, the same in every process, in the environment variable"
        + " SPOTKIT_CLUSTER_SECRET (at least 16 bytes; e.g. export SPOTKIT_CLUSTER_SECRET=$(openssl rand -hex 16))"
        + System.lineSeparator());
    assertThat(serverErrors("--store", "memory://x")).isEqualTo("chat-server: --store memory://x is not a Redis"
        + " URI; e.g. redis://127.0.0.1:6379" + System.lineSeparator());
    assertThat(serverErrors("--store", "redis://x:6379", "--node-index", "-1")).isEqualTo("chat-server:"
        + " --node-index -1 must be between 0 and 1023" + System.lineSeparator());
    assertThat(serverErrors("--store", "redis://x:6379", "--port", "65535", "--node-index", "2"))
        .startsWith("chat-server: --port 65535 with --node-index 2 needs port 65537");
    assertThat(serverErrors("--nodes", "3", "--store", "redis://x:6379")).startsWith("chat-server: --nodes runs"
        + " every node in this process");
    assertThat(serverErrors("--nodes", "0")).isEqualTo("chat-server: --nodes 0 must be between 1 and 64"
        + System.lineSeparator());
    assertThat(serverErrors("--port", "65535", "--nodes", "2")).startsWith("chat-server: --port 65535 with"
        + " --nodes 2 needs ports up to 65536");
    try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      final int nobody = closed.getLocalPort();
      closed.close();
      final ByteArrayOutputStream err = new ByteArrayOutputStream();
      final int code = CompletableFuture.supplyAsync(() -> ChatServerCommandAccess.run(
          new PrintStream(err, true, StandardCharsets.UTF_8),
          java.util.Map.of("SPOTKIT_CLUSTER_SECRET", "0123456789abcdef0123"),
          "--store", "redis://127.0.0.1:" + nobody, "--port", "0")).get(30, TimeUnit.SECONDS);
      assertThat(code).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("chat-server: the store redis://127.0.0.1:"
          + nobody + " cannot be used: ").endsWith(System.lineSeparator()).hasLineCount(1);
    }
  }

  @Test
  void chatBotsTakeSeveralPortsAndNeedOne() {
    final CommandLine top = new CommandLine(new SpotkitExamples());
    assertThat(top.getSubcommands().get("chat-bots").getUsageMessage()).contains("--ports=PORT[,PORT...]")
        .contains("[--port=<port>]...");
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    top.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
    assertThat(top.execute("chat-bots", "--clients", "2")).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("give the server's port: --port P (repeatable) or"
        + " --ports P1,P2,...");
  }

  /** Fewer clients than the default 5 rooms: the rooms default to the clients, not a usage error. */
  @Test
  void chatBotsWithOneClientAndNoRoomsOptionRun() throws Exception {
    try (java.net.ServerSocket closed = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      final int nobody = closed.getLocalPort();
      closed.close(); // nothing listens there: the run fails at its connect, after the settings were accepted
      final CommandLine top = new CommandLine(new SpotkitExamples());
      final ByteArrayOutputStream err = new ByteArrayOutputStream();
      top.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
      final PrintStream wasOut = System.out;
      final ByteArrayOutputStream out = new ByteArrayOutputStream();
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      final int code;
      try {
        code = top.execute("chat-bots", "--port", Integer.toString(nobody), "--clients", "1", "--timeout-seconds",
            "10");
      } finally {
        System.setOut(wasOut);
      }
      assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(1);
      assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("chat-bots: clients=1 rooms=1 ");
    }
  }

  @Test
  void chatDemoRelocationsNeedTwoNodesAndAreNotNegative() {
    for (String[] args : List.of(new String[] {"--relocations", "-1"},
        new String[] {"--relocations", "3", "--nodes", "1"})) {
      final CommandLine top = new CommandLine(new SpotkitExamples());
      final ByteArrayOutputStream err = new ByteArrayOutputStream();
      top.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
      final List<String> line = new java.util.ArrayList<>(List.of("chat-demo"));
      line.addAll(List.of(args));
      assertThat(top.execute(line.toArray(String[]::new))).as(String.join(" ", args)).isEqualTo(2);
      assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("--relocations " + args[1]
          + " must be 0, or at least 1 with 2 or more --nodes");
    }
  }

  /** Runs chat-server with options that fail before it serves; returns stderr after checking exit code 2. */
  private static String serverErrors(final String... args) {
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final int code = ChatServerCommandAccess.run(new PrintStream(err, true, StandardCharsets.UTF_8), args);
    assertThat(code).as(String.join(" ", args)).isEqualTo(2);
    return err.toString(StandardCharsets.UTF_8);
  }
}
