package dev.spotkit.core.mesh;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * One authenticated, ordered TCP connection to a peer node. There is at most one per peer pair (see
 * {@link MeshTransport}). Thread-safe: every method may be called from any thread.
 *
 * <p>Delivery: frames passed to {@link #send(byte[])} or {@link #send(byte[], byte[], int, int)} are written in
 * the order of the calls (calls from different threads are ordered as they reach the connection's event loop),
 * and the peer's {@link MeshListener} sees them in that order. There is no acknowledgement and no retry: when the
 * connection is lost, frames not yet written are lost with it, and {@link MeshListener#onConnectionLost} tells
 * both sides.
 *
 * <p>Outbound bound ({@link MeshConfig#maxPendingOutboundBytes()}): every frame handed to this connection is counted
 * ({@link #pendingOutboundBytes()}) from the call until the write to the socket completed or failed, so frames still
 * queued as event-loop tasks count as well as those in the channel's buffer (Netty's {@code isWritable()} sees only
 * the latter). A bounded send ({@link #send(byte[], Deadline)}, {@link #request(LongFunction, Deadline, boolean)})
 * waits for room until its deadline and then fails with {@link SpotkitException.CapacityExceeded}; the framework
 * frames of the other send methods are counted but never refused (they are driven by frames this node read, or carry
 * their own budget, spec 001 section 5.3).
 *
 * <p>Frame limits: the peer's frame limit is learnt in the handshake ({@link #peerMaxFrameLength()}); a frame over
 * it is refused before it is queued, with {@link SpotkitException.CapacityExceeded}, so it never reaches a peer that
 * would close the connection on it.
 */
public final class PeerConnection {

  private final MeshTransport transport;
  private final Channel channel;
  private final NodeRid peerRid;
  private final long peerGeneration;
  private final boolean dialed;
  private final int peerMaxFrameLength;
  private final long maxPendingBytes;
  private final ConcurrentHashMap<Long, Pending> pending = new ConcurrentHashMap<>();

  /**
   * Bytes handed to this connection and not yet written (or failed). Written by: senders (add before queuing) and the
   * event loop (subtract when a write completes). Read by: senders. Ordering: atomic read-modify-write only.
   */
  private final AtomicLong pendingBytes = new AtomicLong();
  /** Highest {@link #pendingBytes} seen, for tests and reports. Same threads; atomic max. */
  private final AtomicLong peakPendingBytes = new AtomicLong();
  /**
   * Senders waiting for room. Incremented under {@link #roomLock} before a waiter re-reads {@link #pendingBytes}; read
   * by the event loop after it subtracted, so either the waiter sees the room or the event loop sees the waiter.
   */
  private final AtomicInteger waiters = new AtomicInteger();
  private final ReentrantLock roomLock = new ReentrantLock();
  private final Condition room = roomLock.newCondition();

  /**
   * Completed once, with the reason, when the channel closes. Written by: the channel's event loop (in
   * {@link #onClosed}). Read by: any thread. Completion happens-before the pending-request drain, and
   * {@link #request} checks it after registering, so every request is failed exactly once (see there).
   */
  private final CompletableFuture<CloseReason> closed = new CompletableFuture<>();

  /** A request waiting for its reply, and the timer that fails it at its deadline. */
  private static final class Pending {
    final CompletableFuture<byte[]> future = new CompletableFuture<>();
    /**
     * Set once, right after the timer is scheduled. Written by: the requesting thread. Read by: the event loop
     * when the reply or the close comes first (it may still be null then; the requester cancels the timer
     * itself when it sees the future already done).
     */
    volatile ScheduledFuture<?> timer;

    void cancelTimer() {
      final ScheduledFuture<?> t = timer;
      if (t != null) {
        t.cancel(false);
      }
    }
  }

  PeerConnection(final MeshTransport transport, final Channel channel, final NodeRid peerRid,
      final long peerGeneration, final boolean dialed, final int peerMaxFrameLength) {
    this.transport = transport;
    this.channel = channel;
    this.peerRid = peerRid;
    this.peerGeneration = peerGeneration;
    this.dialed = dialed;
    this.peerMaxFrameLength = peerMaxFrameLength;
    this.maxPendingBytes = transport.config().maxPendingOutboundBytes();
  }

  /**
   * The longest frame the peer accepts, from its handshake (its {@link MeshConfig#maxFrameLength()}).
   *
   * @return bytes, without the 4-byte length prefix.
   */
  public int peerMaxFrameLength() {
    return peerMaxFrameLength;
  }

  /**
   * Bytes handed to this connection and not yet written to the socket, frames still queued as event-loop tasks
   * included (each frame counts its length plus the 4-byte prefix).
   *
   * @return bytes, a snapshot. Any thread.
   */
  public long pendingOutboundBytes() {
    return pendingBytes.get();
  }

  /**
   * The highest {@link #pendingOutboundBytes()} reached on this connection.
   *
   * @return bytes. Any thread.
   */
  public long peakPendingOutboundBytes() {
    return peakPendingBytes.get();
  }

  /**
   * The peer's id, proven in the handshake.
   *
   * @return the NodeRid.
   */
  public NodeRid peerRid() {
    return peerRid;
  }

  /**
   * The peer's lifecycle generation, proven in the handshake.
   *
   * @return 1..2^63-1.
   */
  public long peerGeneration() {
    return peerGeneration;
  }

  /**
   * Whether this node dialed the connection (false: the peer dialed it).
   *
   * @return true when dialed by this node.
   */
  public boolean dialedByThisNode() {
    return dialed;
  }

  /**
   * The peer's socket address.
   *
   * @return the remote address.
   */
  public InetSocketAddress remoteAddress() {
    return (InetSocketAddress) channel.remoteAddress();
  }

  /**
   * Whether the connection is still open.
   *
   * @return false once it closed (or started closing).
   */
  public boolean isOpen() {
    return !closed.isDone() && channel.isActive();
  }

  /**
   * Completes once, with the reason, when the connection closes; the same reason
   * {@link MeshListener#onConnectionLost} gets.
   *
   * @return a future that never fails.
   */
  public CompletableFuture<CloseReason> closeFuture() {
    return closed.copy();
  }

  /**
   * Sends one framework frame, after every frame sent before it on this connection. Never blocks: the frame
   * is queued on the connection's event loop.
   *
   * <p>Ownership: the array is handed to the transport and must not be modified after the call (it is written
   * without a copy).
   *
   * @param frame the whole frame, head included, 1..{@link MeshConfig#maxFrameLength()} bytes.
   * @return true when queued; false when the connection is closed (the frame is dropped).
   * @throws SpotkitException.InvalidOperation when the frame is empty or longer than the configured limit.
   */
  public boolean send(final byte[] frame) {
    Objects.requireNonNull(frame, "frame");
    checkLength(frame.length);
    return write(() -> Unpooled.wrappedBuffer(frame), null, charge(frame.length)); // owned by Netty now
  }

  /**
   * Sends one frame like {@link #send(byte[])}, within the outbound bound ({@link
   * MeshConfig#maxPendingOutboundBytes()}): when the bytes pending for this peer leave no room, the calling thread
   * waits (a virtual thread parks) until the peer read enough or {@code admitBy} passed. One frame is always admitted
   * when nothing is pending. On a Netty event loop it never waits: the frame is admitted and counted (an event loop
   * sends in answer to what it read, so TCP slows it). The ordinary send path of application messages (command 60).
   *
   * @param frame the whole frame, 1..min(own, peer's) frame limit bytes; not modified after the call.
   * @param admitBy absolute; how long the caller may be slowed.
   * @return true when queued; false when the connection is closed (the frame is dropped).
   * @throws SpotkitException.CapacityExceeded when no room came by {@code admitBy}, or the frame is over the peer's
   *     frame limit.
   * @throws SpotkitException.InvalidOperation when the frame is empty or longer than this node's limit.
   */
  public boolean send(final byte[] frame, final Deadline admitBy) {
    Objects.requireNonNull(frame, "frame");
    Objects.requireNonNull(admitBy, "admitBy");
    checkLength(frame.length);
    final long charge = charge(frame.length);
    if (!admit(charge, admitBy)) {
      return false;
    }
    return writeAdmitted(() -> Unpooled.wrappedBuffer(frame), null, charge);
  }

  /** What a frame of {@code length} bytes counts against the bound: the frame and its length prefix. */
  private static long charge(final long length) {
    return length + MeshChannels.LENGTH_PREFIX;
  }

  /**
   * Sends one framework frame like {@link #send(byte[])} and runs {@code written} once the transport wrote it to
   * the socket (the moment Core releases the frame's accounted charge: spec 001 section 5.3 counts a relocation
   * chunk in flight until then). Not run when the write fails or the connection closes first.
   *
   * @param frame the whole frame, head included, 1..{@link MeshConfig#maxFrameLength()} bytes.
   * @param written runs on the connection's event loop after the write; must not block.
   * @return true when queued; false when the connection is closed (the frame is dropped, {@code written} not run).
   * @throws SpotkitException.InvalidOperation when the frame is empty or longer than the configured limit.
   */
  public boolean send(final byte[] frame, final Runnable written) {
    Objects.requireNonNull(frame, "frame");
    Objects.requireNonNull(written, "written");
    checkLength(frame.length);
    return write(() -> Unpooled.wrappedBuffer(frame), written, charge(frame.length));
  }

  /**
   * Sends one framework frame like {@link #send(byte[])}, except that when called on this connection's event loop it
   * is written at once, ahead of frames other threads queued on the loop and the loop has not written yet; from any
   * other thread it is queued like {@link #send(byte[])}. For a step that runs on the loop in answer to a frame this
   * connection read and must reach the peer without waiting behind unrelated queued writes: the relocation relay and
   * cutover a source sends on the relay-ready reply (spec 001 section 4.4: the target's cutover wait runs while they
   * travel). Frames this call writes keep their call order among themselves.
   *
   * @param frame the whole frame, head included, 1..{@link MeshConfig#maxFrameLength()} bytes.
   * @return true when written or queued; false when the connection is closed (the frame is dropped).
   * @throws SpotkitException.InvalidOperation when the frame is empty or longer than the configured limit.
   */
  public boolean sendNow(final byte[] frame) {
    Objects.requireNonNull(frame, "frame");
    checkLength(frame.length);
    if (!channel.eventLoop().inEventLoop()) {
      return send(frame);
    }
    if (!isOpen()) {
      return false;
    }
    final long charge = charge(frame.length);
    count(charge);
    channel.writeAndFlush(Unpooled.wrappedBuffer(frame)).addListener(afterWrite(null, charge));
    return true;
  }

  /**
   * Sends one framework frame given in two parts, {@code head} followed by {@code length} bytes of {@code body}
   * from {@code offset}, after every frame sent before it on this connection; the peer receives one frame of
   * {@code head.length + length} bytes, exactly as if the two parts had been joined and passed to
   * {@link #send(byte[])}. Nothing is copied on the calling thread and the parts are never joined into a new
   * heap array: on the event loop both are written once into the direct buffer the socket writes from (the one
   * copy every heap frame gets on its way to the socket), so a large payload can travel as slices of one array
   * behind small per-frame heads (relocation command 52 chunks). Never blocks.
   *
   * <p>Ownership: both arrays are handed to the transport until the frame is written; neither may be modified
   * after the call (reading them, or sending other slices of {@code body}, is fine).
   *
   * @param head the first bytes of the frame (the framework head {@code 5A 4D 01 <cmd> <flags>} and any fields),
   *     at least 1 byte.
   * @param body the array holding the rest of the frame.
   * @param offset where the rest starts in {@code body}, 0..body.length.
   * @param length how many bytes of {@code body} follow the head, 0..body.length - offset.
   * @return true when queued; false when the connection is closed (the frame is dropped).
   * @throws SpotkitException.InvalidOperation when the head is empty or the whole frame is longer than
   *     {@link MeshConfig#maxFrameLength()}.
   * @throws IndexOutOfBoundsException when {@code offset} and {@code length} do not lie within {@code body}.
   */
  public boolean send(final byte[] head, final byte[] body, final int offset, final int length) {
    return sendParts(head, body, offset, length, null);
  }

  /**
   * Sends one framework frame in two parts like {@link #send(byte[], byte[], int, int)} and runs {@code written}
   * once the transport wrote it to the socket, like {@link #send(byte[], Runnable)}: the path of relocation command
   * 52 chunks, which are ranges of the source's payload and stay in the in-flight budget until written (spec 001
   * section 5.3). Not run when the write fails or the connection closes first.
   *
   * <p>Ownership: as {@link #send(byte[], byte[], int, int)}; neither array may be modified after the call.
   *
   * @param head the first bytes of the frame, at least 1 byte.
   * @param body the array holding the rest of the frame.
   * @param offset where the rest starts in {@code body}, 0..body.length.
   * @param length how many bytes of {@code body} follow the head, 0..body.length - offset.
   * @param written runs on the connection's event loop after the write; must not block.
   * @return true when queued; false when the connection is closed (the frame is dropped, {@code written} not run).
   * @throws SpotkitException.InvalidOperation when the head is empty or the whole frame is longer than
   *     {@link MeshConfig#maxFrameLength()}.
   * @throws IndexOutOfBoundsException when {@code offset} and {@code length} do not lie within {@code body}.
   */
  public boolean send(final byte[] head, final byte[] body, final int offset, final int length,
      final Runnable written) {
    Objects.requireNonNull(written, "written");
    return sendParts(head, body, offset, length, written);
  }

  private boolean sendParts(final byte[] head, final byte[] body, final int offset, final int length,
      final Runnable written) {
    Objects.requireNonNull(head, "head");
    Objects.requireNonNull(body, "body");
    Objects.checkFromIndexSize(offset, length, body.length);
    if (head.length == 0) {
      throw new SpotkitException.InvalidOperation("frame head is empty; a framework frame starts with 5A 4D 01");
    }
    checkLength((long) head.length + length);
    return write(() -> {
      // One direct buffer, filled on the event loop: the same single copy a one-part heap frame gets when the
      // channel moves it to a direct buffer for the socket. A composite of the two heap parts would cost one
      // more: Netty merges a multi-component heap buffer on the heap before that move.
      final ByteBuf buf = channel.alloc().directBuffer(head.length + length);
      return buf.writeBytes(head).writeBytes(body, offset, length);
    }, written, charge((long) head.length + length));
  }

  private void checkLength(final long frameLength) {
    final int max = transport.config().maxFrameLength();
    if (frameLength == 0 || frameLength > max) {
      throw new SpotkitException.InvalidOperation("frame of " + frameLength + " bytes is outside 1..maxFrameLength "
          + max + "; split it (relocation chunks) or raise MeshConfig.maxFrameLength on every node");
    }
    if (frameLength > peerMaxFrameLength) {
      throw new SpotkitException.CapacityExceeded("frame of " + frameLength + " bytes is over the frame limit "
          + peerMaxFrameLength + " of peer " + peerRid + " (its maxFrameLength, from the handshake); not sent. Use"
          + " the same maxFrameBytes on every node, or send less");
    }
  }

  /** Counts {@code charge} bytes as pending, never waiting. */
  private void count(final long charge) {
    final long now = pendingBytes.addAndGet(charge);
    peakPendingBytes.accumulateAndGet(now, Math::max);
  }

  /**
   * Takes room for {@code charge} bytes within the bound, waiting until {@code admitBy} when there is none (never on
   * an event loop thread: there it counts at once).
   *
   * @return false when the connection closed first.
   * @throws SpotkitException.CapacityExceeded at the deadline.
   */
  private boolean admit(final long charge, final Deadline admitBy) {
    if (!isOpen()) {
      return false;
    }
    if (tryAdmit(charge)) {
      return true;
    }
    if (Thread.currentThread() instanceof io.netty.util.concurrent.FastThreadLocalThread) {
      count(charge); // an event loop never waits; what it sends is paced by what it reads
      return true;
    }
    roomLock.lock();
    waiters.incrementAndGet();
    try {
      // Bounded: each pass either admits, returns, or waits for a release, a close or the deadline.
      while (true) {
        if (!isOpen()) {
          return false;
        }
        if (tryAdmit(charge)) {
          return true;
        }
        final long left = admitBy.remaining().toNanos();
        if (left <= 0) {
          throw new SpotkitException.CapacityExceeded("outbound bound to peer " + peerRid + " is full: "
              + pendingBytes.get() + " bytes not yet written (maxPendingOutboundBytes " + maxPendingBytes
              + "); the peer did not read them before the send deadline. Slow the sender down, or raise the bound");
        }
        try {
          room.awaitNanos(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SpotkitException.Unavailable("interrupted while waiting for room to send to peer " + peerRid);
        }
      }
    } finally {
      waiters.decrementAndGet();
      roomLock.unlock();
    }
  }

  private boolean tryAdmit(final long charge) {
    // Bounded by contention: each failed CAS means another sender moved the count.
    while (true) {
      final long now = pendingBytes.get();
      if (now != 0 && now + charge > maxPendingBytes) {
        return false;
      }
      if (pendingBytes.compareAndSet(now, now + charge)) {
        peakPendingBytes.accumulateAndGet(now + charge, Math::max);
        return true;
      }
    }
  }

  /** Gives back {@code charge} bytes (written, failed or never queued) and wakes waiting senders. */
  private void release(final long charge) {
    pendingBytes.addAndGet(-charge);
    wakeWaiters();
  }

  private void wakeWaiters() {
    if (waiters.get() > 0) {
      roomLock.lock();
      try {
        room.signalAll();
      } finally {
        roomLock.unlock();
      }
    }
  }

  /** Counts, then queues one write on the event loop (framework frames: never refused by the bound). */
  private boolean write(final Supplier<ByteBuf> buffer, final Runnable written, final long charge) {
    if (!isOpen()) {
      return false;
    }
    count(charge);
    return writeAdmitted(buffer, written, charge);
  }

  /** Queues one write of bytes already counted; the buffer is made there (Netty owns it from then on). */
  private boolean writeAdmitted(final Supplier<ByteBuf> buffer, final Runnable written, final long charge) {
    try {
      // Always through the event loop's queue, even when called on it: a direct write from the loop could
      // overtake writes other threads queued earlier, and this method promises call order.
      channel.eventLoop().execute(() -> channel.writeAndFlush(buffer.get()).addListener(afterWrite(written,
          charge)));
      return true;
    } catch (RejectedExecutionException e) {
      release(charge);
      return false; // the transport is shutting down
    }
  }

  /**
   * After a write: the charge is given back; a failure closes the connection; a success runs {@code written} (may be
   * null).
   */
  private ChannelFutureListener afterWrite(final Runnable written, final long charge) {
    return f -> {
      release(charge);
      if (!f.isSuccess() && channel.isActive()) {
        MeshChannels.closeWith(channel, CloseReason.IO_ERROR, "write failed: " + f.cause());
      } else if (f.isSuccess() && written != null) {
        written.run();
      }
    };
  }

  /**
   * Sends a request and waits for its command 20 reply without blocking: the future completes with the reply
   * frame whose correlation equals the one given to {@code encoder}, or fails with
   * {@link SpotkitException.DeadlineExceeded} when {@code deadline} passes first, or with
   * {@link SpotkitException.Unavailable} (cause {@link MeshConnectionException}) when the connection is lost
   * first. Exactly one of the three happens. A reply arriving after the deadline goes to
   * {@link MeshListener#onFrame} as an unmatched reply.
   *
   * <p>Decode the reply with {@code dev.spotkit.core.wire.ReplyCodec#decode(byte[], OperationKind)}: the
   * requester knows the request's kind, the reply does not carry it.
   *
   * @param encoder builds the request frame around the correlation it is given (non-zero, unique on this
   *     transport while the request is pending); called once, on the calling thread.
   * @param deadline absolute, on the monotonic clock; not extended by anything.
   * @return the reply frame (head included); any thread may wait on it, with a timeout.
   */
  public CompletableFuture<byte[]> request(final LongFunction<byte[]> encoder, final Deadline deadline) {
    return request(encoder, deadline, this::send); // never waits: callers may hold a monitor
  }

  /**
   * A request like {@link #request(LongFunction, Deadline)}; when {@code bounded}, its frame is sent within the
   * outbound bound like {@link #send(byte[], Deadline)}, waiting for room until {@code deadline} (the future then
   * fails with {@link SpotkitException.CapacityExceeded}). The ordinary request path of application messages.
   *
   * @param encoder builds the request frame around its correlation; called once, on the calling thread.
   * @param deadline absolute, on the monotonic clock.
   * @param bounded whether the frame waits for room in the outbound bound.
   * @return the reply frame, or a typed failure (also CapacityExceeded for a frame over the peer's frame limit).
   */
  public CompletableFuture<byte[]> request(final LongFunction<byte[]> encoder, final Deadline deadline,
      final boolean bounded) {
    return bounded ? request(encoder, deadline, frame -> send(frame, deadline)) : request(encoder, deadline);
  }

  private CompletableFuture<byte[]> request(final LongFunction<byte[]> encoder, final Deadline deadline,
      final java.util.function.Predicate<byte[]> sender) {
    Objects.requireNonNull(encoder, "encoder");
    Objects.requireNonNull(deadline, "deadline");
    if (deadline.isExpired()) {
      return CompletableFuture.failedFuture(new SpotkitException.DeadlineExceeded("request to " + peerRid
          + ": the deadline passed before it was sent"));
    }
    final long correlation = transport.nextCorrelation();
    final byte[] frame = encoder.apply(correlation);
    final Pending p = new Pending();
    // Registered before the timer and the send, so neither a fast reply nor an early timer can miss it.
    pending.put(correlation, p);
    if (closed.isDone()) { // onClosed may have drained before the put: whoever removes it fails it
      failPending(correlation, closed.getNow(CloseReason.TRANSPORT_CLOSED)); // done: never blocks
      return p.future;
    }
    try {
      p.timer = channel.eventLoop().schedule(() -> expire(correlation), deadline.remaining().toNanos(),
          TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      failPending(correlation, CloseReason.TRANSPORT_CLOSED);
      return p.future;
    }
    if (p.future.isDone()) {
      p.cancelTimer(); // the reply or the close came before the timer was set
    }
    final boolean sent;
    try {
      sent = sender.test(frame);
    } catch (SpotkitException e) {
      final Pending refused = pending.remove(correlation);
      if (refused != null) {
        refused.cancelTimer();
      }
      if (e instanceof SpotkitException.InvalidOperation) {
        throw e; // this node's own limit: a programming error, thrown as before
      }
      if (refused != null) {
        refused.future.completeExceptionally(e);
      }
      return p.future;
    }
    if (!sent) {
      failPending(correlation, CloseReason.PEER_CLOSED);
    }
    return p.future;
  }

  /** Closes the connection ({@link CloseReason#LOCAL_CLOSE}). Idempotent; any thread. */
  public void close() {
    MeshChannels.closeWith(channel, CloseReason.LOCAL_CLOSE, "closed by this node");
  }

  /** Event loop: a reply frame arrived; true when it completed a pending request. */
  boolean completeRequest(final long correlation, final byte[] frame) {
    final Pending p = pending.remove(correlation);
    if (p == null) {
      return false;
    }
    p.cancelTimer();
    p.future.complete(frame);
    return true;
  }

  /** Event loop: the channel closed. Completes {@link #closeFuture()} first, then fails pending requests. */
  void onClosed(final CloseReason reason) {
    closed.complete(reason);
    wakeWaiters(); // senders waiting for room see the close and give up with Unavailable
    for (Long correlation : pending.keySet()) {
      failPending(correlation, reason);
    }
  }

  Channel channel() {
    return channel;
  }

  private void expire(final long correlation) {
    final Pending p = pending.remove(correlation);
    if (p != null) {
      p.future.completeExceptionally(new SpotkitException.DeadlineExceeded("request " + correlation + " to peer "
          + peerRid + ": no reply before the deadline"));
    }
  }

  private void failPending(final long correlation, final CloseReason reason) {
    final Pending p = pending.remove(correlation);
    if (p != null) {
      p.cancelTimer();
      p.future.completeExceptionally(unavailable(reason, "connection to peer " + peerRid
          + " lost before the reply to request " + correlation));
    }
  }

  private SpotkitException.Unavailable unavailable(final CloseReason reason, final String detail) {
    return new SpotkitException.Unavailable(detail + " (" + reason + ")", new MeshConnectionException(reason,
        detail));
  }

  @Override
  public String toString() {
    return "PeerConnection[peer=" + peerRid + ", generation=" + peerGeneration + ", " + (dialed ? "dialed"
        : "accepted") + ", " + channel.remoteAddress() + (isOpen() ? "" : ", closed") + "]";
  }
}
