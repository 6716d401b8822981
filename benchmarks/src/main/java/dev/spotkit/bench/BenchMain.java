package dev.spotkit.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The benchmarks jar's entry point: JMH's own command line ({@code org.openjdk.jmh.Main}), with the fork JVM flags
 * of {@link Jvm#forkArgs()} for the JDK this runs on, unless the caller gives {@code -jvmArgsAppend} itself. JMH
 * annotations cannot depend on the JDK, and JDK 21 and 22 refuse {@code --sun-misc-unsafe-memory-access}, which
 * JDK 23+ wants for Netty.
 */
public final class BenchMain {
    private BenchMain() {
    }

    /**
     * Runs JMH.
     *
     * @param args JMH's command line arguments ({@code -h} lists them)
     * @throws Exception what JMH throws (bad options, a failed benchmark)
     */
    public static void main(String[] args) throws Exception {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        if (!all.contains("-jvmArgsAppend")) {
            all.add(0, "-jvmArgsAppend");
            all.add(1, String.join(" ", Jvm.forkArgs()));
        }
        org.openjdk.jmh.Main.main(all.toArray(String[]::new));
    }
}
