package dev.spotkit.examples.admin;

import dev.spotkit.core.MeshAdmin;
import dev.spotkit.core.MeshName;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.redis.RedisLocationStore;
import dev.spotkit.redis.RedisStoreOptions;
import dev.spotkit.store.StoreException;
import java.io.PrintWriter;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The options every {@code spotkit-admin} command shares ({@code --store}, {@code --store-prefix}, {@code --mesh},
 * {@code --json}, {@code --store-timeout}) and the one place that turns failures into exit codes: 1 the operation
 * failed (a typed {@link SpotkitException}, or a {@link Failure} such as {@link DrainCommand.NodeNotLive}), 2 bad
 * usage ({@link Usage}, a malformed URI or prefix), 3 the store is unreachable or did not answer within
 * {@code --store-timeout} (a {@link StoreException}, or an {@link SpotkitException.Unavailable} caused by one). Each
 * failure is one {@code spotkit-admin CMD: ...} line on stderr, no stack trace.
 */
public final class AdminOptions {
  /** Exit code: done. */
  public static final int OK = 0;
  /** Exit code: the operation failed (nothing found, refused, or the drain did not move everything). */
  public static final int FAILED = 1;
  /** Exit code: bad usage. */
  public static final int USAGE = 2;
  /** Exit code: the store is unreachable or did not answer in time. */
  public static final int STORE_UNREACHABLE = 3;

  @Option(names = "--store", paramLabel = "URI", defaultValue = "${env:SPOTKIT_STORE:-redis://127.0.0.1:6379}",
      description = "The Redis of the mesh's Location Store (default: environment variable SPOTKIT_STORE, else"
          + " ${DEFAULT-VALUE}).")
  String store;

  @Option(names = "--store-prefix", paramLabel = "PREFIX", required = true,
      description = "The Redis key prefix the mesh's nodes were started with, e.g. spotkit-chat.")
  String prefix;

  @Option(names = "--mesh", paramLabel = "NAME",
      description = "Only this MeshName (default: every mesh under the prefix).")
  String mesh;

  @Option(names = "--json", description = "Print one JSON document instead of a table.")
  boolean json;

  @Option(names = "--store-timeout", paramLabel = "DURATION", defaultValue = "5s", converter = DurationConverter.class,
      description = "Bound of connecting and of each store call, e.g. 2s (default: ${DEFAULT-VALUE}).")
  Duration storeTimeout;

  /** A usage problem found after parsing (a bad node name, an ambiguous prefix): exit code 2. */
  public static final class Usage extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the problem.
     *
     * @param message one line for the operator.
     */
    public Usage(final String message) {
      super(message);
    }
  }

  /**
   * The operation failed for a reason the command names in the message (exit code 1; the message is printed as is,
   * after the command's name). Subclasses carry the details as fields.
   */
  public static class Failure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the failure.
     *
     * @param message one line for the operator: what failed, the value, what to do.
     */
    public Failure(final String message) {
      super(message);
    }
  }

  /** What a command does with the admin. */
  @FunctionalInterface
  public interface Body {
    /**
     * Runs the command.
     *
     * @param admin the admin over the connected store.
     * @param out stdout.
     * @param err stderr (progress lines).
     * @return the exit code.
     * @throws Exception a failure, mapped to an exit code by {@link #run}.
     */
    int run(MeshAdmin admin, PrintWriter out, PrintWriter err) throws Exception;
  }

  /**
   * Where the command looked, for a hint to the operator: {@code store prefix 'PREFIX' at URI}, the URI without its
   * user and password.
   *
   * @return that phrase.
   */
  public String where() {
    return "store prefix '" + prefix + "' at " + store.replaceFirst("^([a-zA-Z][a-zA-Z0-9+.-]*://)[^@/]*@", "$1");
  }

  /** @return whether {@code --json} was given. */
  public boolean json() {
    return json;
  }

  /**
   * The {@code --mesh} filter.
   *
   * @return the MeshName, or null for every mesh.
   * @throws Usage when it is not a valid MeshName.
   */
  public MeshName mesh() {
    if (mesh == null) {
      return null;
    }
    try {
      return new MeshName(mesh);
    } catch (SpotkitException e) {
      throw new Usage("--mesh '" + mesh + "' is not a MeshName: " + e.getMessage());
    }
  }

  /**
   * Connects to the store, runs {@code body} and closes the store.
   *
   * @param spec the running command (its name prefixes error lines; its out and err are used).
   * @param body the command.
   * @return the exit code.
   */
  public int run(final CommandSpec spec, final Body body) {
    final PrintWriter out = spec.commandLine().getOut();
    final PrintWriter err = spec.commandLine().getErr();
    final String name = "spotkit-admin " + spec.name();
    try {
      mesh(); // a usage error before any connection
      final RedisLocationStore store = RedisLocationStore.connect(RedisStoreOptions.of(this.store, prefix)
          .withCommandTimeout(storeTimeout));
      try (store) {
        return body.run(MeshAdmin.over(store, storeTimeout), out, err);
      }
    } catch (Usage | IllegalArgumentException e) {
      err.println(name + ": " + e.getMessage());
      return USAGE;
    } catch (Failure e) {
      err.println(name + ": " + e.getMessage());
      return FAILED;
    } catch (StoreException e) {
      err.println(name + ": store unreachable: " + e.getMessage());
      return STORE_UNREACHABLE;
    } catch (SpotkitException e) {
      if (e instanceof SpotkitException.Unavailable && causedByStore(e)) {
        err.println(name + ": store unreachable: " + e.getMessage());
        return STORE_UNREACHABLE;
      }
      err.println(name + ": " + e.kind() + ": " + e.getMessage());
      return FAILED;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println(name + ": interrupted");
      return FAILED;
    } catch (Exception e) {
      err.println(name + ": " + e);
      return FAILED;
    } finally {
      out.flush();
      err.flush();
    }
  }

  private static boolean causedByStore(final Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StoreException) {
        return true;
      }
    }
    return false;
  }
}
