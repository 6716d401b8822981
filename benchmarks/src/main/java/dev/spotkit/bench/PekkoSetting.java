package dev.spotkit.bench;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;

/**
 * The two Pekko typed settings the benchmarks compare against:
 * <ul>
 *   <li>{@code pekko}: Pekko's shipped defaults (default dispatcher = fork-join, parallelism-min 8, factor 1.0,
 *       throughput 5), which is what the earlier baseline figures in the issue were measured with;</li>
 *   <li>{@code pekko-tuned}: the same dispatcher sized like Spotkit's: parallelism = available processors (Spotkit's
 *       worker count) and throughput 64 (Spotkit's turn batch).</li>
 * </ul>
 * Dead-letter logging is off in both.
 */
final class PekkoSetting {
    /** Pekko's shipped default dispatcher throughput. */
    static final int DEFAULT_THROUGHPUT = 5;
    /** Tuned throughput: Spotkit's turn batch. */
    static final int TUNED_THROUGHPUT = 64;

    private PekkoSetting() {
    }

    /** Maps a benchmark {@code impl} value to the tuned flag. */
    static boolean tuned(final String impl) {
        return switch (impl) {
            case "pekko" -> false;
            case "pekko-tuned" -> true;
            default -> throw new IllegalArgumentException("not a Pekko impl: " + impl);
        };
    }

    static Config config(final boolean tuned) {
        final StringBuilder conf = new StringBuilder(String.join("\n",
            "pekko.loglevel = WARNING",
            "pekko.stdout-loglevel = WARNING",
            "pekko.log-dead-letters = off",
            "pekko.log-dead-letters-during-shutdown = off"));
        if (tuned) {
            final int p = Math.max(1, Runtime.getRuntime().availableProcessors());
            conf.append('\n').append(String.join("\n",
                "pekko.actor.default-dispatcher.throughput = " + TUNED_THROUGHPUT,
                "pekko.actor.default-dispatcher.fork-join-executor.parallelism-min = " + p,
                "pekko.actor.default-dispatcher.fork-join-executor.parallelism-factor = 1.0",
                "pekko.actor.default-dispatcher.fork-join-executor.parallelism-max = " + p));
        }
        return ConfigFactory.parseString(conf.toString()).withFallback(ConfigFactory.load());
    }

    static <T> ActorSystem<T> system(final Behavior<T> guardian, final String name, final boolean tuned) {
        return ActorSystem.create(guardian, name, config(tuned));
    }

    static void terminate(final ActorSystem<?> system) {
        system.terminate();
        try {
            system.getWhenTerminated().toCompletableFuture().get(Duration.ofSeconds(10).toMillis(),
                TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            throw new IllegalStateException("Pekko system " + system.name() + " did not terminate in 10 s", e);
        }
    }
}
