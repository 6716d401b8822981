package dev.spotkit.core.arch;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.thirdparty.org.objectweb.asm.ClassReader;
import com.tngtech.archunit.thirdparty.org.objectweb.asm.ClassVisitor;
import com.tngtech.archunit.thirdparty.org.objectweb.asm.Label;
import com.tngtech.archunit.thirdparty.org.objectweb.asm.MethodVisitor;
import com.tngtech.archunit.thirdparty.org.objectweb.asm.Opcodes;
import dev.spotkit.core.MeshNode;
import dev.spotkit.mailbox.Dispatcher;
import dev.spotkit.relocation.RelocationPump;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * No toolkit code blocks while it holds a monitor (issue "system work waits behind user handlers"): on JDK 21-23 a
 * virtual thread that blocks inside {@code synchronized} (or in {@code Object.wait}) pins its carrier, so a few such
 * waits, plus user handlers busy on the other carriers, stall every virtual thread of the process, system work
 * included. Code that must wait while excluding others uses a {@link java.util.concurrent.locks.ReentrantLock}
 * (a virtual thread parks off its carrier) or moves the blocking call out of the critical section.
 *
 * <p>Checked on the bytecode of toolkit-core, toolkit-mailbox and toolkit-relocation: every call made inside a
 * {@code synchronized} block (between {@code monitorenter} and its {@code monitorexit}) or in a {@code synchronized}
 * method must not reach, through toolkit methods (statically resolved, up the superclass chain), a blocking JDK or
 * Netty call: future {@code get}/{@code join}, {@code Object.wait}, {@code Thread.sleep}/{@code join}, latch, condition
 * and semaphore waits, {@code LockSupport.park}, executor {@code awaitTermination}, Netty {@code sync}/{@code await}.
 * Lambdas are separate methods: a lambda created under a monitor runs later, elsewhere, and is not counted.
 */
class NoBlockingUnderMonitorTest {

  /** JDK and Netty calls that block the calling thread: owner internal name, then method names. */
  private static final Map<String, Set<String>> BLOCKING = Map.ofEntries(
      Map.entry("java/util/concurrent/CompletableFuture", Set.of("get", "join")),
      Map.entry("java/util/concurrent/Future", Set.of("get")),
      Map.entry("java/util/concurrent/FutureTask", Set.of("get")),
      Map.entry("java/lang/Object", Set.of("wait")),
      Map.entry("java/lang/Thread", Set.of("sleep", "join")),
      Map.entry("java/util/concurrent/CountDownLatch", Set.of("await")),
      Map.entry("java/util/concurrent/CyclicBarrier", Set.of("await")),
      Map.entry("java/util/concurrent/Semaphore", Set.of("acquire", "acquireUninterruptibly")),
      Map.entry("java/util/concurrent/locks/Condition", Set.of("await", "awaitNanos", "awaitUninterruptibly",
          "awaitUntil")),
      Map.entry("java/util/concurrent/locks/LockSupport", Set.of("park", "parkNanos", "parkUntil")),
      Map.entry("java/util/concurrent/ExecutorService", Set.of("awaitTermination", "close")),
      Map.entry("java/util/concurrent/ThreadPoolExecutor", Set.of("awaitTermination")),
      Map.entry("java/util/concurrent/BlockingQueue", Set.of("take", "put")),
      Map.entry("io/netty/util/concurrent/Future", Set.of("sync", "syncUninterruptibly", "await",
          "awaitUninterruptibly", "get")),
      Map.entry("io/netty/channel/ChannelFuture", Set.of("sync", "syncUninterruptibly", "await",
          "awaitUninterruptibly")),
      Map.entry("io/netty/util/concurrent/EventExecutorGroup", Set.of("awaitTermination")));

  /** One call: its target, and whether it is made while a monitor is held. */
  private record Call(String owner, String name, String desc, boolean underMonitor) {
    String key() {
      return owner + "." + name + desc;
    }
  }

  /** What is known of the scanned classes. */
  private static final class Scan {
    final Map<String, List<Call>> calls = new HashMap<>(); // method key -> calls
    final Map<String, String> superOf = new HashMap<>();
    final Set<String> declared = new HashSet<>();
  }

  @Test
  void noToolkitCodeBlocksWhileItHoldsAMonitor() throws Exception {
    final Scan scan = new Scan();
    for (Class<?> anchor : List.of(MeshNode.class, Dispatcher.class, RelocationPump.class)) {
      read(anchor, scan);
    }
    assertThat(scan.declared).as("scanned toolkit methods").hasSizeGreaterThan(1000);
    final Map<String, String> blockingWhy = blockingMethods(scan);
    final Set<String> violations = new TreeSet<>();
    for (Map.Entry<String, List<Call>> method : scan.calls.entrySet()) {
      for (Call call : method.getValue()) {
        if (!call.underMonitor()) {
          continue;
        }
        final String why = why(call, scan, blockingWhy);
        if (why != null) {
          violations.add(method.getKey() + " holds a monitor and calls " + why);
        }
      }
    }
    assertThat(violations).as("blocking calls under a monitor (use a ReentrantLock, or call outside the lock)")
        .isEmpty();
  }

  /** The blocking chain of a call, or null when it does not block. */
  private static String why(final Call call, final Scan scan, final Map<String, String> blockingWhy) {
    final Set<String> names = BLOCKING.get(call.owner());
    if (names != null && names.contains(call.name())) {
      return call.owner() + "." + call.name();
    }
    final String resolved = resolve(call, scan);
    return resolved == null || !blockingWhy.containsKey(resolved) ? null : resolved + " -> " + blockingWhy.get(resolved);
  }

  /** The declaring toolkit method of a call (up the superclass chain), or null when it is not a toolkit method. */
  private static String resolve(final Call call, final Scan scan) {
    String owner = call.owner();
    for (int i = 0; i < 32 && owner != null; i++) { // bounded: class hierarchies are shallow
      final String key = owner + "." + call.name() + call.desc();
      if (scan.declared.contains(key)) {
        return key;
      }
      owner = scan.superOf.get(owner);
    }
    return null;
  }

  /** Fixpoint: toolkit methods that reach a blocking call, with one chain each. */
  private static Map<String, String> blockingMethods(final Scan scan) {
    final Map<String, String> blocking = new LinkedHashMap<>();
    boolean changed = true;
    for (int round = 0; changed && round < 10_000; round++) { // bounded: each round adds a method or ends
      changed = false;
      for (Map.Entry<String, List<Call>> method : scan.calls.entrySet()) {
        if (blocking.containsKey(method.getKey())) {
          continue;
        }
        for (Call call : method.getValue()) {
          final String why = why(call, scan, blocking);
          if (why != null) {
            blocking.put(method.getKey(), shorten(why));
            changed = true;
            break;
          }
        }
      }
    }
    return blocking;
  }

  private static String shorten(final String chain) {
    return chain.length() > 600 ? "... " + chain.substring(chain.length() - 600) : chain;
  }

  private static void read(final Class<?> anchor, final Scan scan) throws IOException, URISyntaxException {
    final Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    if (Files.isDirectory(location)) {
      try (Stream<Path> files = Files.walk(location)) {
        for (Path file : files.filter(p -> p.toString().endsWith(".class")).toList()) {
          try (InputStream in = Files.newInputStream(file)) {
            visit(in.readAllBytes(), scan);
          }
        }
      }
      return;
    }
    try (ZipFile jar = new ZipFile(location.toFile())) {
      for (var entry : java.util.Collections.list(jar.entries())) {
        if (entry.getName().endsWith(".class") && !entry.getName().endsWith("module-info.class")) {
          try (InputStream in = jar.getInputStream(entry)) {
            visit(in.readAllBytes(), scan);
          }
        }
      }
    }
  }

  private static void visit(final byte[] bytes, final Scan scan) {
    final ClassReader reader = new ClassReader(bytes);
    if (reader.getClassName().equals("module-info")) {
      return;
    }
    reader.accept(new ClassVisitor(Opcodes.ASM9) {
      private String className;

      @Override
      public void visit(final int version, final int access, final String name, final String signature,
          final String superName, final String[] interfaces) {
        className = name;
        if (superName != null) {
          scan.superOf.put(name, superName);
        }
      }

      @Override
      public MethodVisitor visitMethod(final int access, final String name, final String desc,
          final String signature, final String[] exceptions) {
        final String key = className + "." + name + desc;
        scan.declared.add(key);
        final List<Call> calls = scan.calls.computeIfAbsent(key, k -> new ArrayList<>());
        final boolean synchronizedMethod = (access & Opcodes.ACC_SYNCHRONIZED) != 0;
        return new MethodVisitor(Opcodes.ASM9) {
          /** Handlers of try/finally and synchronized blocks: their monitorexit does not end a block. */
          private final Set<Label> anyHandlers = new HashSet<>();
          private int depth;
          private boolean inHandler;

          @Override
          public void visitTryCatchBlock(final Label start, final Label end, final Label handler,
              final String type) {
            if (type == null) {
              anyHandlers.add(handler);
            }
          }

          @Override
          public void visitLabel(final Label label) {
            if (anyHandlers.contains(label)) {
              inHandler = true;
            }
          }

          @Override
          public void visitInsn(final int opcode) {
            if (opcode == Opcodes.MONITORENTER) {
              depth++;
            } else if (opcode == Opcodes.MONITOREXIT && !inHandler) {
              depth = Math.max(0, depth - 1);
            } else if (opcode == Opcodes.ATHROW) {
              inHandler = false;
            }
          }

          @Override
          public void visitMethodInsn(final int opcode, final String owner, final String callee,
              final String calleeDesc, final boolean isInterface) {
            calls.add(new Call(owner, callee, calleeDesc, synchronizedMethod || depth > 0));
          }
        };
      }
    }, ClassReader.SKIP_FRAMES);
  }
}
