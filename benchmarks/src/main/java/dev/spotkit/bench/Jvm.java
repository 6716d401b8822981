package dev.spotkit.bench;

/**
 * JVM options every benchmark fork gets. The first three mirror {@code spotkit.jvm.flags} in the parent pom (Agrona
 * needs {@code jdk.internal.misc} on JDK 24+); the heap is fixed so that GC sizing does not differ between forks.
 */
final class Jvm {
    static final String ADD_OPENS = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED";
    static final String UNSAFE = "--sun-misc-unsafe-memory-access=allow";
    static final String NATIVE = "--enable-native-access=ALL-UNNAMED";
    static final String XMS = "-Xms1g";
    static final String XMX = "-Xmx1g";
    static final String QUIET_SLF4J = "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn";

    /** How long one invocation may take before the benchmark fails instead of hanging. */
    static final long INVOCATION_TIMEOUT_SECONDS = 60;

    private Jvm() {
    }
}
