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
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * recorded on it (reported Unavailable by the survivors, never owned a second time). With crash recovery on (three
 * more JVMs in a mesh of their own) a JVM killed with SIGKILL has its objects created again on the survivors. Every
 * wait is bounded; the processes are destroyed in {@link #stopAll()}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MultiProcessMeshTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();

  private static final String MESH = "mp";
  private static final String RECOVERY_MESH = "mp-recovery";
  private static final String PREFIX = "multi";
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(20);
  /**
   * Bound on a child JVM's start up to its ready line: three JVMs start at once, and under a fully loaded machine one
   * took more than 20 s.
   */
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  /** Past the children's lease TTL and fencing margin: a re-creation through a loaded machine's store round trips. */
  private static final Duration RECOVERY_SLACK = Duration.ofSeconds(10);
  private static final List<Child> CHILDREN = new ArrayList<>();
  /** The children of the crash recovery test, started by it (recreation on) and destroyed in {@link #stopAll()}. */
  private static final List<Child> RECOVERY_CHILDREN = new ArrayList<>();
  /** The children of the SIGSTOP test, started by it (recreation on) and destroyed in {@link #stopAll()}. */
  private static final List<Child> STOPPED_CHILDREN = new ArrayList<>();
  private static final String STOPPED_MESH = "mp-sigstop";
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
      return answer(ANSWER_TIMEOUT);
    }

    String answer(final Duration within) {
      try {
        final String line = answers.poll(within.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null) {
          throw new AssertionError("node " + index + " gave no answer in " + within + " (alive="
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
  @Timeout(value = 150, unit = TimeUnit.SECONDS) // three JVMs start at once, on a machine that may be fully loaded
  static void startThreeNodes() {
    startNodes(0, MESH, List.of(), CHILDREN);
    store = RedisLocationStore.connect(REDIS.uri(), PREFIX);
  }

  /**
   * Starts three child JVMs of one mesh on {@link #PREFIX} into {@code into} (so {@link #stopAll()} destroys them
   * even when one does not get ready), indexed from {@code firstIndex} (their stderr goes to
   * {@code target/mesh-node-INDEX.log}), and waits for their RoutingIds.
   */
  private static void startNodes(final int firstIndex, final String mesh, final List<String> options,
      final List<Child> into) {
    final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    final List<String> flags = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> a.startsWith("--")).toList(); // the JDK 24+ flags of the surefire argLine
    final byte[] secretBytes = new byte[24];
    ThreadLocalRandom.current().nextBytes(secretBytes);
    final String secret = HexFormat.of().formatHex(secretBytes);
    final List<Child> started = new ArrayList<>();
    for (int i = firstIndex; i < firstIndex + 3; i++) {
      final List<String> command = new ArrayList<>();
      command.add(java);
      command.addAll(flags);
      command.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
          MeshNodeProcess.class.getName(), REDIS.uri(), PREFIX, mesh, secret));
      command.addAll(options);
      final File log = new File("target/mesh-node-" + i + ".log");
      try {
        final Child child = new Child(i, new ProcessBuilder(command).redirectError(log).start());
        into.add(child);
        started.add(child);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start " + java, e);
      }
    }
    for (Child child : started) {
      final String ready = child.answer(START_TIMEOUT);
      assertThat(ready).startsWith("ready ");
      child.rid = ready.substring("ready ".length());
    }
  }

  @AfterAll
  static void stopAll() throws InterruptedException {
    final List<Child> all = new ArrayList<>(CHILDREN);
    all.addAll(RECOVERY_CHILDREN);
    all.addAll(STOPPED_CHILDREN);
    for (Child child : all) {
      signal("CONT", child.process); // a stopped process takes SIGKILL too, but may keep a pipe open until resumed
      child.process.destroyForcibly();
    }
    for (Child child : all) {
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

  /**
   * Crash recovery across real processes (issue 15, "crash recovery"): three more child JVMs, in a mesh of their own,
   * run with {@code recreateAfterOwnerLoss(true)}, the product default. Actors are placed until the victim JVM hosts
   * some and the two survivors some, and both survivors have asked the victim's; then the victim is killed with
   * SIGKILL. A GetOrCreate from a survivor of each of the victim's actors creates it again within the children's
   * owner lease TTL plus fencing margin (plus slack for a loaded machine) of the kill: on a survivor, with a higher
   * ObjectGeneration; both survivors agree on the new incarnation and reach it, and its factory ran once. The
   * survivors' own actors are not created again: same node, same ObjectGeneration, one factory run, still answering.
   * The killed node is swept from the mesh: the survivors no longer list its descriptor, and its capacity record is
   * gone.
   */
  @Test
  @Order(3)
  @Timeout(value = 120, unit = TimeUnit.SECONDS) // three more JVMs start, on a machine that may be fully loaded
  void aKilledJvmsActorsAreCreatedAgainOnASurvivorWithHigherGenerationsAndTheSurvivorsActorsStay() throws Exception {
    startNodes(3, RECOVERY_MESH, List.of(MeshNodeProcess.RECREATE), RECOVERY_CHILDREN);
    final Child asker = RECOVERY_CHILDREN.get(0);
    final Child victim = RECOVERY_CHILDREN.get(2);
    final List<Child> survivors = List.of(asker, RECOVERY_CHILDREN.get(1));
    final Map<String, Incarnation> before = placeOnEveryNode(asker, victim);
    final List<String> onVictim = before.keySet().stream().filter(id -> before.get(id).rid().equals(victim.rid))
        .toList();
    final List<String> onSurvivors = before.keySet().stream().filter(id -> !onVictim.contains(id)).toList();
    for (Child survivor : survivors) {
      assertThat(nodesSeenBy(survivor)).as("the mesh as node %d reads it", survivor.index)
          .isEqualTo(live(RECOVERY_CHILDREN));
      for (String id : onVictim) {
        assertThat(survivor.call("ask " + id)).isEqualTo("ok " + victim.rid);
      }
    }
    final String victimLeaseOwner = leaseOwnerOf(RECOVERY_MESH, victim.rid);

    final long killedAt = System.nanoTime();
    victim.process.destroyForcibly();
    assertThat(victim.process.waitFor(10, TimeUnit.SECONDS)).as("the killed JVM is gone").isTrue();
    final Map<String, Incarnation> after = awaitCreatedAgain(asker, victim, onVictim, killedAt);
    assertThat(readRecord(LocationKeys.ownerLease(victimLeaseOwner).preimage())).as("the killed node's lease")
        .isInstanceOf(ReadResult.Missing.class);

    for (String id : onVictim) {
      final Incarnation now = after.get(id);
      assertThat(now.rid()).as("%s is created again on a survivor", id).isIn(rids(survivors));
      assertThat(now.generation()).as("%s is a new incarnation", id).isGreaterThan(before.get(id).generation());
      for (Child survivor : survivors) {
        assertThat(survivor.call("incarnation " + id)).as("node %d on %s", survivor.index, id)
            .isEqualTo("Existing " + now.rid() + " " + now.generation());
        assertThat(survivor.call("ask " + id)).as("node %d reaches the new %s", survivor.index, id)
            .isEqualTo("ok " + now.rid());
      }
      assertThat(runs(survivors, id)).as("factory runs of %s on the survivors", id).isEqualTo(1);
    }
    for (String id : onSurvivors) {
      final Incarnation then = before.get(id);
      for (Child survivor : survivors) {
        assertThat(survivor.call("incarnation " + id)).as("node %d on %s: not created again", survivor.index, id)
            .isEqualTo("Existing " + then.rid() + " " + then.generation());
        assertThat(survivor.call("ask " + id)).isEqualTo("ok " + then.rid());
      }
      assertThat(runs(survivors, id)).as("factory runs of %s", id).isEqualTo(1);
    }

    // the re-creation's placement read of the mesh swept the killed node's descriptor and capacity record
    await("the survivors no longer list the killed node").atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
          for (Child survivor : survivors) {
            assertThat(nodesSeenBy(survivor)).as("the mesh as node %d reads it", survivor.index)
                .isEqualTo(live(survivors));
          }
        });
    assertThat(readRecord(LocationKeys.meshNode(RECOVERY_MESH, victim.rid).preimage())).as("descriptor")
        .isInstanceOf(ReadResult.Missing.class);
    assertThat(readRecord(LocationKeys.nodeCapacity(RECOVERY_MESH, victim.rid).preimage())).as("capacity record")
        .isInstanceOf(ReadResult.Missing.class);
  }

  /**
   * A SIGSTOPped owner resumed after its objects were created again cannot act (issue 15, "crash recovery"): three
   * more child JVMs with crash recovery on; "ticking" actors (a 20 ms timer each, every tick noted with its wall-clock
   * time) run on the sleeper and on the others. The sleeper is stopped with SIGSTOP; once its lease lapsed, a
   * GetOrCreate from another node creates each of its actors again there (higher ObjectGeneration), and the new
   * incarnation ticks. Then the sleeper is resumed with SIGCONT: it runs no tick of any actor after it was stopped
   * (every tick of the stopped incarnations is older than the SIGSTOP, so no actor id ever ticked on two nodes at once:
   * the "running" count per id never exceeds 1), a GetOrCreate on it fails, and it stops itself (its owner lease is
   * gone for good). The other nodes' actors tick on.
   */
  @Test
  @Order(4)
  @Timeout(value = 120, unit = TimeUnit.SECONDS) // three more JVMs start, on a machine that may be fully loaded
  void aStoppedOwnerResumedAfterItsActorsWereCreatedAgainCannotActAndNoIdRunsTwice() throws Exception {
    startNodes(6, STOPPED_MESH, List.of(MeshNodeProcess.RECREATE), STOPPED_CHILDREN);
    final Child asker = STOPPED_CHILDREN.get(0);
    final Child sleeper = STOPPED_CHILDREN.get(2);
    final Map<String, Incarnation> before = new TreeMap<>();
    for (int i = 0; i < 40 && before.values().stream().filter(n -> n.rid().equals(sleeper.rid)).count() < 3; i++) {
      final Incarnation placed = Incarnation.parseOrNull(asker.call("tick tk-" + i));
      assertThat(placed).as("tk-%d", i).isNotNull();
      before.put("tk-" + i, placed);
    }
    final List<String> onSleeper = before.keySet().stream().filter(id -> before.get(id).rid().equals(sleeper.rid))
        .toList();
    final List<String> elsewhere = before.keySet().stream().filter(id -> !onSleeper.contains(id)).toList();
    assertThat(onSleeper).as("actors on the sleeper of %s", before).hasSize(3);
    for (String id : onSleeper) {
      await(id + " ticks on the sleeper").atMost(ANSWER_TIMEOUT).until(() -> ticks(sleeper, id, 0).all() > 0);
    }

    signal("STOP", sleeper.process);
    final long stoppedAt = System.currentTimeMillis();
    final long stoppedNanos = System.nanoTime();
    final Map<String, Incarnation> after = awaitCreatedAgain(asker, sleeper, onSleeper, stoppedNanos, "tick");
    for (String id : onSleeper) {
      assertThat(after.get(id).generation()).as("%s is a new incarnation", id)
          .isGreaterThan(before.get(id).generation());
      final Child host = STOPPED_CHILDREN.stream().filter(c -> c.rid.equals(after.get(id).rid())).findFirst()
          .orElseThrow();
      await(id + " ticks on " + host.index).atMost(ANSWER_TIMEOUT).until(() -> ticks(host, id, 0).all() > 0);
    }

    signal("CONT", sleeper.process);
    await("the resumed sleeper stops itself").atMost(ANSWER_TIMEOUT).pollInterval(Duration.ofMillis(100))
        .until(() -> sleeper.call("state").startsWith("terminated "));
    assertThat(sleeper.call("getOrCreate fresh-after-resume")).as("the fenced node creates nothing")
        .startsWith("error ");
    for (String id : onSleeper) {
      final Ticks old = ticks(sleeper, id, stoppedAt + 1); // a tick in the millisecond kill(1) returned ran before
      assertThat(old.since()).as("ticks of %s on the sleeper after its SIGSTOP: %s", id, old).isZero();
      final Child host = STOPPED_CHILDREN.stream().filter(c -> c.rid.equals(after.get(id).rid())).findFirst()
          .orElseThrow();
      final Ticks now = ticks(host, id, 0);
      assertThat(old.last()).as("%s: the stopped incarnation's last tick is older than the new one's first", id)
          .isLessThan(now.first());
    }
    for (String id : elsewhere) {
      final Child host = STOPPED_CHILDREN.stream().filter(c -> c.rid.equals(before.get(id).rid())).findFirst()
          .orElseThrow();
      final long resumedAt = System.currentTimeMillis();
      await(id + " ticks on").atMost(ANSWER_TIMEOUT).until(() -> ticks(host, id, resumedAt).since() > 0);
    }
  }

  /** One answer of {@code ticks ID SINCE}. */
  private record Ticks(long all, long since, long first, long last) {
  }

  private static Ticks ticks(final Child child, final String id, final long sinceEpochMillis) {
    final String answer = child.call("ticks " + id + " " + sinceEpochMillis);
    final Matcher m = Pattern.compile("ticks (\\d+) since=(\\d+) first=(\\d+) last=(\\d+)").matcher(answer);
    assertThat(m.matches()).as("ticks of %s on node %d: %s", id, child.index, answer).isTrue();
    return new Ticks(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
        Long.parseLong(m.group(4)));
  }

  /** Sends {@code SIG<name>} to {@code process} with kill(1); a process already gone is no error. */
  private static void signal(final String name, final Process process) throws InterruptedException {
    try {
      new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException("kill -" + name, e);
    }
  }

  /** One answer of {@code incarnation ID}: the node that holds the actor, and its ObjectGeneration. */
  private record Incarnation(String outcome, String rid, long generation) {
    private static final Pattern FORM = Pattern.compile("(Created|Existing) ([0-9a-f]{16}) ([0-9]+)");

    /** The answer parsed, or null when it is an error. */
    static Incarnation parseOrNull(final String answer) {
      final Matcher m = FORM.matcher(answer);
      return m.matches() ? new Incarnation(m.group(1), m.group(2), Long.parseLong(m.group(3))) : null;
    }
  }

  /**
   * GetOrCreate from {@code asker} of actors rec-0, rec-1, ... (a weighted random draw places each) until the victim
   * hosts three and the other two nodes three together, at most 40.
   */
  private static Map<String, Incarnation> placeOnEveryNode(final Child asker, final Child victim) {
    final Map<String, Incarnation> placed = new TreeMap<>();
    int onVictim = 0;
    for (int i = 0; i < 40 && (onVictim < 3 || placed.size() - onVictim < 3); i++) {
      final String answer = asker.call("incarnation rec-" + i);
      final Incarnation created = Incarnation.parseOrNull(answer);
      assertThat(created).as("rec-%d: %s", i, answer).isNotNull();
      assertThat(created.outcome()).as("rec-%d is new", i).isEqualTo("Created");
      placed.put("rec-" + i, created);
      onVictim += created.rid().equals(victim.rid) ? 1 : 0;
    }
    assertThat(onVictim).as("actors on the victim of %s", placed).isGreaterThanOrEqualTo(3);
    assertThat(placed.size() - onVictim).as("actors on the survivors of %s", placed).isGreaterThanOrEqualTo(3);
    return placed;
  }

  /**
   * GetOrCreate from {@code asker} of each of {@code ids}, again and again, until every one answers from another node
   * than the killed {@code victim}, within the children's owner lease TTL plus fencing margin plus
   * {@link #RECOVERY_SLACK} of {@code killedAt}.
   */
  private static Map<String, Incarnation> awaitCreatedAgain(final Child asker, final Child victim,
      final List<String> ids, final long killedAt) {
    return awaitCreatedAgain(asker, victim, ids, killedAt, "incarnation");
  }

  /**
   * As {@link #awaitCreatedAgain(Child, Child, List, long)} with {@code command} ({@code incarnation} or {@code tick},
   * both answer {@code Created|Existing RID GEN}).
   */
  private static Map<String, Incarnation> awaitCreatedAgain(final Child asker, final Child victim,
      final List<String> ids, final long killedAt, final String command) {
    final Duration bound = MeshNodeProcess.OWNER_LEASE_TTL.plus(MeshNodeProcess.FENCING_MARGIN).plus(RECOVERY_SLACK);
    final Map<String, Incarnation> again = new ConcurrentHashMap<>();
    final Map<String, String> last = new ConcurrentHashMap<>();
    await("the killed node's actors are created again").atMost(bound.minusNanos(System.nanoTime() - killedAt))
        .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
          for (String id : ids) {
            if (!again.containsKey(id)) {
              final String answer = asker.call(command + " " + id);
              last.put(id, answer);
              final Incarnation now = Incarnation.parseOrNull(answer);
              if (now != null && !now.rid().equals(victim.rid)) {
                again.put(id, now);
              }
            }
          }
          assertThat(again.keySet()).as("created again; the last answers %s", last).containsAll(ids);
        });
    return new TreeMap<>(again);
  }

  /** The mesh's descriptors as {@code child} reads them ({@code nodes}): {@code RID:live} or {@code RID:lapsed}. */
  private static Set<String> nodesSeenBy(final Child child) {
    final String answer = child.call("nodes");
    assertThat(answer).as("nodes from node %d", child.index).startsWith("nodes");
    return Set.of(answer.substring("nodes".length()).trim().split(" "));
  }

  private static Set<String> live(final List<Child> children) {
    return children.stream().map(c -> c.rid + ":live").collect(Collectors.toSet());
  }

  /** The factory runs of actor {@code id} on {@code children} together. */
  private static int runs(final List<Child> children, final String id) {
    return children.stream().mapToInt(c -> Integer.parseInt(c.call("runs " + id))).sum();
  }

  private static String leaseOwnerOf(final String ridHex) {
    return leaseOwnerOf(MESH, ridHex);
  }

  private static String leaseOwnerOf(final String mesh, final String ridHex) {
    final ReadResult read = store.read(LocationKeys.meshNode(mesh, ridHex).preimage()).toCompletableFuture()
        .join();
    assertThat(read).as("descriptor of node %s", ridHex).isInstanceOf(ReadResult.Found.class);
    return MeshNodeDescriptorRecord.decode(((ReadResult.Found) read).value()).ownerId();
  }

  private static ReadResult readLease(final String ownerId) {
    return readRecord(LocationKeys.ownerLease(ownerId).preimage());
  }

  private static ReadResult readRecord(final String preimage) {
    return store.read(preimage).toCompletableFuture().orTimeout(5, TimeUnit.SECONDS).join();
  }
}
