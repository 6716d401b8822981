package dev.spotkit.core.internal.runtime;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.Objects;

/**
 * What the session listener and the mesh transport share about listening sockets: host and port checks with the
 * same messages, and whether the caller runs on one of a group's event loops (where waiting for that group would
 * wait for itself).
 */
public final class Listen {
  private Listen() {
  }

  /**
   * Checks a host to bind.
   *
   * @param host name or address, not blank; "0.0.0.0" listens on every interface.
   * @return {@code host}.
   * @throws IllegalArgumentException when blank; NullPointerException when null.
   */
  public static String requireHost(final String host) {
    Objects.requireNonNull(host, "host");
    if (host.isBlank()) {
      throw new IllegalArgumentException("host must not be blank; use \"127.0.0.1\" or \"0.0.0.0\"");
    }
    return host;
  }

  /**
   * Checks a port to bind.
   *
   * @param port 0..65535; 0 picks a free port at bind time.
   * @return {@code port}.
   * @throws IllegalArgumentException when out of range.
   */
  public static int requirePort(final int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port " + port + " must be between 0 and 65535 (0 = free port)");
    }
    return port;
  }

  /**
   * Whether the calling thread is one of the group's event loops.
   *
   * @param group the group.
   * @return {@code true} on one of its loops.
   */
  public static boolean inEventLoopOf(final EventLoopGroup group) {
    for (EventExecutor loop : group) {
      if (loop.inEventLoop()) {
        return true;
      }
    }
    return false;
  }
}
