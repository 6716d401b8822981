package dev.spotkit.core.session;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Session} of one accepted Netty channel.
 *
 * <p>Outbound accounting: {@link #push} encodes on the calling thread, adds the encoded size to
 * {@link #pendingBytes} and writes; the write's completion (success or failure) subtracts it. So
 * {@code pendingBytes} is exactly the bytes pushed and not yet handed to the socket (a push queued as an event-loop
 * task included). A push that would take it past {@code maxOutboundBytes} waits (its thread parks, at most
 * {@code pushTimeout}; polled every 100 ms as well as woken by completed writes) and then fails with
 * {@code CapacityExceeded}; a push on an event loop cannot wait and cuts the slow reader instead.
 *
 * <p>Inbound accounting: {@link #frameQueued} and {@link #frameHandled} move {@link #pendingFrames}; reaching
 * the high-water mark turns the channel's auto-read off, falling back to the low-water mark turns it on
 * again. Only the event loop changes auto-read ({@link #readingPaused} is confined to it), so a pause and a
 * resume never race; a resume check is queued on the event loop each time the count falls to the low-water
 * mark, which it must pass after every pause.
 *
 * <p>Half-close drain: when the client shuts its output down ({@link #inputEnded}) the session stops reading and
 * stays open for replies. It closes (after flushing every push queued so far) once no counted frame is unhandled
 * and no push came for {@code halfCloseQuiet}, or at the latest {@code halfCloseDrain} after the EOF. The checks
 * run on the event loop: one scheduled quiet check at a time ({@link #quietCheckScheduled}) and one deadline task.
 */
final class NettySession implements Session {

  private static final Logger LOG = LoggerFactory.getLogger(NettySession.class);

  /** Source of node-unique ids (JVM-wide, so unique across every listener of a node). */
  private static final AtomicLong IDS = new AtomicLong();

  private final long id;
  private final Channel channel;
  private final FrameCodec codec;
  private final int maxOutboundBytes;
  private final int inboundHighWater;
  private final int inboundLowWater;

  /**
   * Frames handed to the consumer and not yet handled.
   * Written by: the event loop ({@link #frameQueued}) and consumer threads ({@link #frameHandled}).
   * Read by: the same, and the event loop's pause and resume checks. Ordering: atomic read-modify-write only.
   */
  private final AtomicInteger pendingFrames = new AtomicInteger();

  /**
   * Set once when the client half-closed.
   * Written by: the event loop ({@link #inputEnded}). Read by: consumer threads in {@link #frameHandled}.
   * Ordering: volatile; a stale false only means the event loop's own check in {@link #inputEnded} closes.
   */
  private volatile boolean inputEnded;

  /** True while auto-read is off because of {@link #pendingFrames}. Event loop only. */
  private boolean readingPaused;

  private final long halfCloseDrainNanos;
  private final long halfCloseQuietNanos;

  /**
   * {@link System#nanoTime()} of the last push, frame handled or the EOF, once the input ended (before that it is
   * not kept). Written by: pushing threads, consumer threads and the event loop. Read by: the event loop's quiet
   * check. Ordering: volatile; a late write only delays the close by one quiet check.
   */
  private volatile long lastActivityNanos;

  /** {@link System#nanoTime()} by which a half-closed session closes. Event loop only. */
  private long drainDeadlineNanos;

  /** True while a quiet check is scheduled on the event loop. Event loop only. */
  private boolean quietCheckScheduled;

  /**
   * Bytes encoded and queued but not yet written to the socket.
   * Written by: pushing threads (add before the write) and the event loop (subtract when a write
   * completes). Read by: {@link #push}. Ordering: atomic read-modify-write only.
   */
  private final AtomicLong pendingBytes = new AtomicLong();

  /** Pushers waiting for room; read by the event loop after a write completed (then it signals {@link #room}). */
  private final AtomicInteger waiters = new AtomicInteger();
  private final java.util.concurrent.locks.ReentrantLock roomLock = new java.util.concurrent.locks.ReentrantLock();
  private final java.util.concurrent.locks.Condition room = roomLock.newCondition();
  private final java.time.Duration pushTimeout;

  /**
   * True once close was requested (by {@link #close}, a refused push, a bad frame under
   * closeOnBadFrame, or channel inactive). Written by: any thread. Read by: any thread. Ordering: volatile.
   */
  private volatile boolean closing;

  /** Completed by the event loop after {@code onClosed} ran (or when no inbound exists). */
  private final CompletableFuture<Void> closedDelivered = new CompletableFuture<>();

  NettySession(final Channel channel, final SessionServerConfig config) {
    this.id = IDS.incrementAndGet();
    this.channel = channel;
    this.codec = config.codec();
    this.maxOutboundBytes = config.maxOutboundBytes();
    this.pushTimeout = config.pushTimeout();
    this.inboundHighWater = config.inboundHighWaterFrames();
    this.inboundLowWater = config.inboundLowWaterFrames();
    this.halfCloseDrainNanos = config.halfCloseDrain().toNanos();
    this.halfCloseQuietNanos = config.halfCloseQuiet().toNanos();
  }

  @Override
  public long id() {
    return id;
  }

  @Override
  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }

  @Override
  public boolean isOpen() {
    return !closing && channel.isActive();
  }

  @Override
  public boolean push(final Object message) {
    Objects.requireNonNull(message, "message");
    if (!isOpen()) {
      return false;
    }
    final ByteBuf encoded = codec.encode(channel.alloc(), message);
    final int size = encoded.readableBytes();
    if (size > maxOutboundBytes) {
      encoded.release(); // never written: still ours
      final String reason = "push of " + size + " bytes exceeds maxOutboundBytes " + maxOutboundBytes;
      final Object reply = codec.pushRefusedReply(reason);
      if (reply != null) {
        writeCounted(codec.encode(channel.alloc(), reply)); // the client learns of it; small, so never refused
      }
      throw new dev.spotkit.core.SpotkitException.CapacityExceeded("session " + id + ": " + reason + "; the"
          + " message was not sent (the client got an error line instead); send it in parts, or raise"
          + " SessionServerConfig.maxOutboundBytes");
    }
    if (!admit(size)) {
      encoded.release();
      if (!isOpen()) {
        return false;
      }
      if (Thread.currentThread() instanceof io.netty.util.concurrent.FastThreadLocalThread) {
        // An event loop cannot wait for the client: the slow reader is cut, as before.
        LOG.warn("session {} ({}) closed: {} pending outbound bytes leave no room for {} more within"
            + " maxOutboundBytes {} (slow reader; a push on an event loop cannot wait)", id, channel.remoteAddress(),
            pendingBytes.get(), size, maxOutboundBytes);
        close();
        return false;
      }
      throw new dev.spotkit.core.SpotkitException.CapacityExceeded("session " + id + " (" + channel.remoteAddress()
          + "): the client did not read for " + pushTimeout.toMillis() + " ms and " + pendingBytes.get()
          + " pushed bytes wait (maxOutboundBytes " + maxOutboundBytes + "); the push of " + size + " bytes was"
          + " not sent. The session stays open and pushes go through again once the client reads");
    }
    write(encoded, size);
    return true;
  }

  /**
   * Takes room for {@code size} bytes in the outbound budget, waiting up to {@link #pushTimeout} for the client to
   * read (never on an event loop thread).
   *
   * @return false when no room came in time, or the session closed.
   */
  private boolean admit(final int size) {
    if (tryAdmit(size)) {
      return true;
    }
    if (Thread.currentThread() instanceof io.netty.util.concurrent.FastThreadLocalThread) {
      return false;
    }
    final long deadline = System.nanoTime() + pushTimeout.toNanos();
    roomLock.lock();
    waiters.incrementAndGet();
    try {
      // Bounded: each pass admits, returns, or waits for a completed write, the close or the deadline.
      while (true) {
        if (!isOpen()) {
          return false;
        }
        if (tryAdmit(size)) {
          return true;
        }
        final long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        try {
          room.awaitNanos(Math.min(left, java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    } finally {
      waiters.decrementAndGet();
      roomLock.unlock();
    }
  }

  private boolean tryAdmit(final int size) {
    // Bounded by contention: each failed CAS means another pusher or a completed write moved the count.
    while (true) {
      final long now = pendingBytes.get();
      if (now + size > maxOutboundBytes) {
        return false;
      }
      if (pendingBytes.compareAndSet(now, now + size)) {
        return true;
      }
    }
  }

  /** Counts and writes a small buffer outside the budget check (an error line). */
  private void writeCounted(final ByteBuf encoded) {
    final int size = encoded.readableBytes();
    pendingBytes.addAndGet(size);
    write(encoded, size);
  }

  private void write(final ByteBuf encoded, final int size) {
    if (inputEnded) {
      lastActivityNanos = System.nanoTime(); // a reply of the half-close drain: the quiet time starts again
    }
    final ChannelPromise written = channel.newPromise();
    written.addListener(future -> {
      pendingBytes.addAndGet(-size);
      if (waiters.get() > 0) {
        roomLock.lock();
        try {
          room.signalAll();
        } finally {
          roomLock.unlock();
        }
      }
    });
    // Hand-off: the channel owns `encoded` from here and releases it after the write, or on failure.
    channel.writeAndFlush(encoded, written);
  }

  @Override
  public void frameQueued() {
    if (pendingFrames.incrementAndGet() >= inboundHighWater) {
      onEventLoop(this::pauseIfHigh);
    }
  }

  @Override
  public void frameHandled() {
    final int pending = pendingFrames.decrementAndGet();
    if (pending == inboundLowWater) {
      onEventLoop(this::resumeIfLow);
    }
    if (inputEnded) {
      lastActivityNanos = System.nanoTime(); // its replies may follow: the quiet time starts now
      if (pending == 0) {
        onEventLoop(this::closeIfDrained);
      }
    }
  }

  /**
   * Event loop only: the client shut its output down (a half-close); the decoders already passed every complete
   * frame on. The session stops reading and stays open for replies: it closes once every frame already delivered
   * was handled and the pushes went quiet for {@code halfCloseQuiet}, or {@code halfCloseDrain} after now, whichever
   * comes first; either way after flushing what was pushed.
   */
  void inputEnded() {
    if (inputEnded || closing) {
      return;
    }
    lastActivityNanos = System.nanoTime();
    drainDeadlineNanos = lastActivityNanos + halfCloseDrainNanos;
    inputEnded = true;
    channel.config().setAutoRead(false); // nothing more to read; resumeIfLow leaves it off from now on
    try {
      channel.eventLoop().schedule(this::drainTimeUp, halfCloseDrainNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      flushThenClose(); // the event loop is stopping: close now
      return;
    }
    closeIfDrained();
  }

  /** Event loop only: closes a drained, quiet half-closed session, or checks again when it may be. */
  private void closeIfDrained() {
    if (!inputEnded || closing || pendingFrames.get() > 0) {
      return; // the last frameHandled checks again
    }
    final long now = System.nanoTime();
    final long quietAt = Math.min(lastActivityNanos + halfCloseQuietNanos, drainDeadlineNanos);
    if (now - quietAt >= 0) {
      flushThenClose();
      return;
    }
    if (!quietCheckScheduled) {
      quietCheckScheduled = true;
      try {
        channel.eventLoop().schedule(() -> {
          quietCheckScheduled = false;
          closeIfDrained();
        }, quietAt - now, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        flushThenClose();
      }
    }
  }

  /** Event loop only: the drain bound passed; close whatever is still unhandled or on its way. */
  private void drainTimeUp() {
    if (!closing) {
      LOG.debug("session {} ({}): half-closed drain bound of {} ms reached ({} frames unhandled); closing", id,
          channel.remoteAddress(), TimeUnit.NANOSECONDS.toMillis(halfCloseDrainNanos), pendingFrames.get());
      flushThenClose();
    }
  }

  private void flushThenClose() {
    closing = true;
    // The empty buffer's write completes after every earlier push (writes are ordered), then the channel closes.
    channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public int pendingFrames() {
    return pendingFrames.get();
  }

  private void pauseIfHigh() {
    if (!readingPaused && pendingFrames.get() >= inboundHighWater) {
      readingPaused = true;
      channel.config().setAutoRead(false);
    }
  }

  private void resumeIfLow() {
    if (readingPaused && pendingFrames.get() <= inboundLowWater) {
      readingPaused = false;
      if (!inputEnded) {
        channel.config().setAutoRead(true);
      }
    }
  }

  private void onEventLoop(final Runnable task) {
    if (channel.eventLoop().inEventLoop()) {
      task.run();
      return;
    }
    try {
      channel.eventLoop().execute(task);
    } catch (RejectedExecutionException e) {
      // the event loop stopped: the channel is closed and reads no more anyway
    }
  }

  /**
   * Writes the codec's error reply, then closes once it is flushed. Any thread.
   *
   * @param reply message for the codec; null closes at once.
   */
  void pushThenClose(final Object reply) {
    if (reply == null || !push(reply)) {
      close();
      return;
    }
    flushThenClose(); // after the reply's write (writes are ordered)
  }

  @Override
  public void close() {
    closing = true;
    channel.close();
  }

  @Override
  public void close(final String reason) {
    if (closing) {
      return;
    }
    pushThenClose(codec.closingReply(reason));
  }

  /** Event loop only: the channel went inactive. */
  void markClosed() {
    closing = true;
  }

  /**
   * Completes when this session's {@code onClosed} has run.
   *
   * @return the future; completed on the event loop.
   */
  CompletableFuture<Void> closedDelivered() {
    return closedDelivered;
  }

  /** Pending outbound bytes, for tests. */
  long pendingBytes() {
    return pendingBytes.get();
  }

  Channel channel() {
    return channel;
  }

  @Override
  public String toString() {
    return "Session[id=" + id + ", remote=" + channel.remoteAddress() + ", open=" + isOpen() + "]";
  }
}
