package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.spotkit.core.Spec;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.MeshNodeDescriptorRecord;
import dev.spotkit.store.ReadResult;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Three MeshNodes in three JVMs ({@link MeshNodeProcess}, started here with the current java binary, the test
 * classpath and this JVM's {@code --} module flags) sharing one real redis-server: creation storms across
 * processes run the factory once, and a JVM killed with SIGKILL loses its owner lease while its objects stay
 * recorded on it (reported Unavailable by the survivors, never owned a second time). Every wait is bounded;
 * the processes are destroyed in {@link #stopAll()}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MultiProcessMeshTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();

  private static final String MESH = "mp";
  private static final String PREFIX = "multi";
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(20);
  private static final List<Child> CHILDREN = new ArrayList<>();
  private static RedisLocationStore store;

  /** One child JVM and its line protocol. */
  static final class Child {
    final int index;
    final Process process;
    final Writer stdin;
    final BlockingQueue<String> answers = new ArrayBlockingQueue<>(64);
    String rid;

    Child(final int index, final Process process) {
      this.index = index;
      this.process = process;
      this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      final Thread reader = new Thread(() -> {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8))) {
          for (String line = out.readLine(); line != null; line = out.readLine()) {
            if (line.startsWith(MeshNodeProcess.ANSWER)) {
              answers.put(line.substring(MeshNodeProcess.ANSWER.length()));
            }
          }
        } catch (IOException | InterruptedException e) {
          // the process died or the test ended: the next answer() times out with the process state
        }
      }, "mesh-node-" + index + "-stdout");
      reader.setDaemon(true);
      reader.start();
    }

    String answer() {
      try {
        final String line = answers.poll(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null) {
          throw new AssertionError("node " + index + " gave no answer in " + ANSWER_TIMEOUT + " (alive="
              + process.isAlive() + "); see target/mesh-node-" + index + ".log");
        }
        return line;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }

    String call(final String command) {
      try {
        stdin.write(command + "\n");
        stdin.flush();
      } catch (IOException e) {
        throw new UncheckedIOException("node " + index + " does not take commands", e);
      }
      return answer();
    }
  }

  @BeforeAll
  static void startThreeNodes() {
    final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    final List<String> flags = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--")).toList(); // the JDK 24+ flags of the surefire argLine
    final byte[] secretBytes = new byte[24];
    ThreadLocalRandom.current().nextBytes(secretBytes);
    final String secret = HexFormat.of().formatHex(secretBytes);
    for (int i = 0; i < 3; i++) {
      final List<String> command = new ArrayList<>();
      command.add(java);
      command.addAll(flags);
      command.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
          MeshNodeProcess.class.getName(), REDIS.uri(), PREFIX, MESH, secret));
      final File log = new File("target/mesh-node-" + i + ".log");
      try {
        CHILDREN.add(new Child(i, new ProcessBuilder(command).redirectError(log).start()));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start " + java, e);
      }
    }
    for (Child child : CHILDREN) {
      final String ready = child.answer();
      assertThat(ready).startsWith("ready ");
      child.rid = ready.substring("ready ".length());
    }
    store = RedisLocationStore.connect(REDIS.uri(), PREFIX);
  }

  @AfterAll
  static void stopAll() throws InterruptedException {
    for (Child child : CHILDREN) {
      child.process.destroyForcibly();
    }
    for (Child child : CHILDREN) {
      child.process.waitFor(10, TimeUnit.SECONDS);
    }
    if (store != null) {
      store.close();
    }
  }

  private static Set<String> rids(final List<Child> children) {
    return children.stream().map(c -> c.rid).collect(Collectors.toSet());
  }

  /** Sends one command to every child at once and collects the answers in child order. */
  private static List<String> everyone(final List<Child> children, final String command) throws Exception {
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      final List<CompletableFuture<String>> answers = new ArrayList<>();
      for (Child child : children) {
        answers.add(CompletableFuture.supplyAsync(() -> child.call(command), pool));
      }
      final List<String> out = new ArrayList<>();
      for (CompletableFuture<String> answer : answers) {
        out.add(answer.get(ANSWER_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS));
      }
      return out;
    }
  }

  @Test
  @Order(1)
  @Spec("MEM-03")
  @Spec("LOC-09")
  void aGetOrCreateStormFromThreeProcessesRunsTheFactoryOnceAndAllAgreeOnTheOwner() throws Exception {
    for (int round = 0; round < 3; round++) {
      final String id = "storm-" + round;
      final List<String> storms = everyone(CHILDREN, "storm " + id + " 8");
      int created = 0;
      final Set<String> owners = new java.util.HashSet<>();
      for (String storm : storms) {
        final Map<String, String> fields = new HashMap<>();
        for (String part : storm.split(" ")) {
          final String[] kv = part.split("=", 2);
          fields.put(kv[0], kv.length > 1 ? kv[1] : "");
        }
        assertThat(fields).as("answer %s", storm).containsKeys("created", "existing", "other", "owners");
        if (!"0".equals(fields.get("other"))) {
          throw new AssertionError(storm + " of " + storms + "; then " + everyone(CHILDREN, "locate " + id)
              + " runs " + everyone(CHILDREN, "runs " + id) + " rids " + CHILDREN.stream().map(c -> c.rid).toList());
        }
        assertThat(Integer.parseInt(fields.get("created")) + Integer.parseInt(fields.get("existing")))
            .as(storm).isEqualTo(8);
        created += Integer.parseInt(fields.get("created"));
        owners.addAll(List.of(fields.get("owners").split(",")));
      }
      assertThat(created).as("one Created across 24 calls in 3 JVMs for %s", id).isEqualTo(1);
      assertThat(owners).as("every caller agrees on the owner of %s", id).hasSize(1);
      assertThat(rids(CHILDREN)).containsAll(owners);
      final List<String> runs = everyone(CHILDREN, "runs " + id);
      assertThat(runs.stream().mapToInt(Integer::parseInt).sum()).as("factory runs of %s: %s", id, runs)
          .isEqualTo(1);
      final String owner = owners.iterator().next();
      assertThat(runs.get(indexOf(owner))).isEqualTo("1");
      assertThat(everyone(CHILDREN, "ask " + id)).containsOnly("ok " + owner);
    }
  }

  private static int indexOf(final String rid) {
    for (Child child : CHILDREN) {
      if (child.rid.equals(rid)) {
        return child.index;
      }
    }
    throw new AssertionError("no child has RoutingId " + rid);
  }

  @Test
  @Order(2)
  void aKilledJvmLosesItsLeaseAndItsObjectsAreUnavailableFromTheSurvivorsNeverOwnedTwice() throws Exception {
    final Child asker = CHILDREN.get(0);
    final Map<String, String> ownerOf = new HashMap<>();
    for (int i = 0; i < 9; i++) {
      final String answer = asker.call("getOrCreate obj-" + i);
      assertThat(answer).matches("(Created|Existing) [0-9a-f]{16}");
      ownerOf.put("obj-" + i, answer.split(" ")[1]);
    }
    final String victimRid = ownerOf.get("obj-0");
    final Child victim = CHILDREN.get(indexOf(victimRid));
    final List<Child> survivors = CHILDREN.stream().filter(c -> c != victim).toList();
    final List<String> victims = ownerOf.entrySet().stream().filter(e -> e.getValue().equals(victimRid))
        .map(Map.Entry::getKey).sorted().toList();
    for (Child survivor : survivors) {
      assertThat(survivor.call("ask obj-0")).isEqualTo("ok " + victimRid);
    }
    final String victimLeaseOwner = leaseOwnerOf(victimRid);
    final List<String> survivorLeaseOwners = survivors.stream().map(c -> leaseOwnerOf(c.rid)).toList();

    victim.process.destroyForcibly();
    assertThat(victim.process.waitFor(10, TimeUnit.SECONDS)).as("the killed JVM is gone").isTrue();

    // the victim's owner lease lapses in the store (TTL 4 s), while the survivors keep renewing theirs
    await("the killed node's owner lease lapses").atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> readLease(victimLeaseOwner) instanceof ReadResult.Missing);
    for (String owner : survivorLeaseOwners) {
      assertThat(readLease(owner)).as("a survivor's lease").isInstanceOf(ReadResult.Found.class);
    }

    for (Child survivor : survivors) {
      for (String id : victims) {
        assertThat(survivor.call("ask " + id)).as("%s from node %d", id, survivor.index)
            .isEqualTo("error Unavailable");
        assertThat(survivor.call("send " + id)).as("one-way %s from node %d", id, survivor.index)
            .isEqualTo("error Unavailable");
        assertThat(survivor.call("find " + id)).as("find reads the row: still the dead owner's ref")
            .isEqualTo("found " + victimRid);
        assertThat(survivor.call("locate " + id)).as("still recorded on the dead owner, not re-owned")
            .isEqualTo("at " + victimRid + " UNAVAILABLE");
        assertThat(survivor.call("getOrCreate " + id)).as("a survivor does not create it again")
            .isEqualTo("Existing " + victimRid);
        assertThat(survivor.call("runs " + id)).isEqualTo("0");
      }
    }
    // new objects go to live nodes only: the lapsed node is out of placement
    final Set<String> placed = new java.util.HashSet<>();
    for (int i = 0; i < 12; i++) {
      final String created = survivors.get(i % 2).call("create");
      assertThat(created).startsWith("created ");
      placed.add(created.split(" ")[2]);
    }
    assertThat(placed).isSubsetOf(rids(survivors)).doesNotContain(victimRid);
    // objects of the survivors still answer from either survivor
    for (Map.Entry<String, String> entry : ownerOf.entrySet()) {
      if (!entry.getValue().equals(victimRid)) {
        for (Child survivor : survivors) {
          assertThat(survivor.call("ask " + entry.getKey())).isEqualTo("ok " + entry.getValue());
        }
      }
    }
  }

  private static String leaseOwnerOf(final String ridHex) {
    final ReadResult read = store.read(LocationKeys.meshNode(MESH, ridHex).preimage()).toCompletableFuture()
        .join();
    assertThat(read).as("descriptor of node %s", ridHex).isInstanceOf(ReadResult.Found.class);
    return MeshNodeDescriptorRecord.decode(((ReadResult.Found) read).value()).ownerId();
  }

  private static ReadResult readLease(final String ownerId) {
    return store.read(LocationKeys.ownerLease(ownerId).preimage()).toCompletableFuture().orTimeout(5,
        TimeUnit.SECONDS).join();
  }
}
