package dev.spotkit.bench;

/**
 * JVM options every benchmark fork gets. The flags mirror {@code spotkit.jvm.flags} in the parent pom and
 * {@code bin/jvm-flags} (Agrona needs {@code jdk.internal.misc} on JDK 24+; {@link #UNSAFE} only on JDK 23+, which
 * {@link BenchMain} adds: JDK 21 and 22 refuse it); the heap is fixed so that GC sizing does not differ between forks.
 */
final class Jvm {
    static final String ADD_OPENS = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED";
    static final String UNSAFE = "--sun-misc-unsafe-memory-access=allow";
    static final String NATIVE = "--enable-native-access=ALL-UNNAMED";
    static final String XMS = "-Xms1g";
    static final String XMX = "-Xmx1g";
    static final String QUIET_SLF4J = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn";

    /**
     * The fork flags for the JDK this runs on, as {@link BenchMain} passes them to JMH.
     *
     * @return the flags, {@link #UNSAFE} included only on JDK 23 or newer
     */
    static java.util.List<String> forkArgs() {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(ADD_OPENS, NATIVE));
        if (Runtime.version().feature() >= 23) {
            args.add(UNSAFE);
        }
        args.addAll(java.util.List.of(XMS, XMX, QUIET_SLF4J));
        return args;
    }

    /** How long one invocation may take before the benchmark fails instead of hanging. */
    static final long INVOCATION_TIMEOUT_SECONDS = 60;

    private Jvm() {
    }
}
