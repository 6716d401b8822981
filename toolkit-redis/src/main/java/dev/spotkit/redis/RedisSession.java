package dev.spotkit.redis;

import dev.spotkit.store.StoreException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * One Lettuce client with one shared connection, and the script runner both stores use. Every call is
 * asynchronous: futures complete on Lettuce's event loop and the continuations here never block. Commands are
 * rejected at once while disconnected (so a failure before sending is Unavailable) and never replayed after a
 * reconnect (so a command whose answer was lost fails as Indeterminate instead of running twice).
 */
final class RedisSession implements AutoCloseable {
  /**
   * The longest wait between two reconnect attempts: 1 s. Lettuce's default backoff grows to 30 s, so after an
   * outage of a few seconds the store stayed Unavailable for up to 30 s after Redis was back, longer than an
   * owner lease TTL (15 s by default).
   */
  static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);

  /** A Lua script with its SHA-1, for EVALSHA with the NOSCRIPT fallback to EVAL. */
  record Script(String name, String source, String sha) {
    static Script of(final String name, final String source) {
      try {
        final byte[] sha = MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8));
        return new Script(name, source, HexFormat.of().formatHex(sha));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("the JDK has no SHA-1", e);
      }
    }
  }

  private final ClientResources resources;
  private final RedisClient client;
  private final StatefulRedisConnection<byte[], byte[]> connection;
  private final RedisAsyncCommands<byte[], byte[]> commands;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final String description;

  private RedisSession(final ClientResources resources, final RedisClient client,
      final StatefulRedisConnection<byte[], byte[]> connection, final String description) {
    this.resources = resources;
    this.client = client;
    this.connection = connection;
    this.commands = connection.async();
    this.description = description;
  }

  static RedisSession connect(final RedisStoreOptions options) {
    final RedisURI uri;
    try {
      uri = RedisURI.create(options.redisUri());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Redis URI '" + options.redisUri() + "' is not valid; use e.g."
          + " redis://127.0.0.1:6379", e);
    }
    uri.setTimeout(options.commandTimeout());
    final ClientResources resources = ClientResources.builder()
        .reconnectDelay(Delay.exponential(Duration.ofMillis(1), MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS))
        .build();
    final RedisClient client = RedisClient.create(resources, uri);
    client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .replayFilter(command -> true)
        .timeoutOptions(TimeoutOptions.enabled(options.commandTimeout()))
        .build());
    try {
      final StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
      requireRedis7(connection, uri);
      return new RedisSession(resources, client, connection,
          "redis " + uri.getHost() + ":" + uri.getPort() + " prefix " + options.keyPrefix());
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      resources.shutdown(0, 2, TimeUnit.SECONDS);
      if (e instanceof RedisException) {
        throw new StoreException.Unavailable("cannot connect to Redis at " + uri.getHost() + ":" + uri.getPort()
            + ": " + e.getMessage(), e);
      }
      throw e;
    }
  }

  /**
   * Refuses a server older than Redis 7.0: the scripts use {@code PEXPIRETIME} (7.0) and {@code SET ... PXAT}
   * (6.2), and on an older server every relocation read would fail with an unknown-command script error. The
   * check asks {@code COMMAND INFO PEXPIRETIME}; a server that refuses {@code COMMAND} itself (an ACL) is let
   * through.
   */
  private static void requireRedis7(final StatefulRedisConnection<byte[], byte[]> connection, final RedisURI uri) {
    final List<Object> info;
    try {
      info = connection.sync().commandInfo("PEXPIRETIME");
    } catch (RedisCommandExecutionException e) {
      return;
    }
    if (info.isEmpty() || info.get(0) == null) {
      throw new StoreException.Unavailable("Redis at " + uri.getHost() + ":" + uri.getPort() + " has no"
          + " PEXPIRETIME command: the Redis stores need Redis 7.0 or later (or a compatible server with"
          + " PEXPIRETIME)", null);
    }
  }

  /**
   * Runs a script: EVALSHA, and on NOSCRIPT once EVAL (which also caches it on the server).
   *
   * @param write true when the script may change data (failures after sending are then Indeterminate).
   */
  CompletableFuture<List<Object>> run(final Script script, final boolean write, final byte[][] keys,
      final byte[]... args) {
    if (closed.get()) {
      return CompletableFuture.failedFuture(new StoreException.Unavailable(script.name() + " refused: the store on "
          + description + " is closed", null));
    }
    return this.<List<Object>>send(() -> commands.evalsha(script.sha(), ScriptOutputType.MULTI, keys, args))
        .handle((result, error) -> {
          if (error == null) {
            return CompletableFuture.completedFuture(result);
          }
          final Throwable cause = unwrap(error);
          if (cause instanceof RedisCommandExecutionException && String.valueOf(cause.getMessage())
              .startsWith("NOSCRIPT")) {
            return this.<List<Object>>send(() -> commands.eval(script.source().getBytes(StandardCharsets.UTF_8),
                ScriptOutputType.MULTI, keys, args));
          }
          return CompletableFuture.<List<Object>>failedFuture(cause);
        })
        .thenCompose(f -> f)
        .exceptionallyCompose(error -> CompletableFuture.failedFuture(map(error, write, script.name())));
  }

  private <T> CompletableFuture<T> send(final Supplier<io.lettuce.core.RedisFuture<T>> command) {
    try {
      return command.get().toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The async commands, for tests and tooling of this package. */
  RedisAsyncCommands<byte[], byte[]> commands() {
    return commands;
  }

  /**
   * Maps a Lettuce failure to the SPI's two kinds (spec 002 section 10): Unavailable when the request surely
   * changed nothing, Indeterminate when a write may have applied.
   */
  StoreException map(final Throwable error, final boolean write, final String what) {
    final Throwable cause = unwrap(error);
    if (cause instanceof StoreException known) {
      return known;
    }
    final String message = what + " on " + description + " failed: " + cause;
    if (cause instanceof OpaqueRecordException) {
      return new StoreException.Unavailable(message, cause);
    }
    if (cause instanceof RedisCommandExecutionException && String.valueOf(cause.getMessage()).startsWith("OOM")) {
      // Redis refuses a memory-growing command in a script only while the script has written nothing yet (it
      // lets a script that has written run on), so a script failing with OOM changed nothing.
      return new StoreException.Unavailable(what + " on " + description + " refused: Redis is at its maxmemory"
          + " limit; nothing was changed (free memory or raise maxmemory): " + cause.getMessage(), cause);
    }
    if (cause instanceof RedisCommandExecutionException) {
      // SPOTKIT errors are raised by the scripts' check phase, before their first write.
      return String.valueOf(cause.getMessage()).contains("SPOTKIT") || !write
          ? new StoreException.Unavailable(message, cause) : new StoreException.Indeterminate(message, cause);
    }
    if (cause instanceof RedisCommandTimeoutException) {
      return write ? new StoreException.Indeterminate(message + " (it may still run; re-read the key)", cause)
          : new StoreException.Unavailable(message, cause);
    }
    if (String.valueOf(cause.getMessage()).contains("not connected")) {
      return new StoreException.Unavailable(message + " (not sent)", cause);
    }
    return write ? new StoreException.Indeterminate(message, cause) : new StoreException.Unavailable(message, cause);
  }

  static Throwable unwrap(final Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  boolean isClosed() {
    return closed.get();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        connection.close();
      } finally {
        try {
          client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        } finally {
          resources.shutdown(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3_000);
        }
      }
    }
  }

  @Override
  public String toString() {
    return description;
  }
}
