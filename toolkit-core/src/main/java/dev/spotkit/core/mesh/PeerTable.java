package dev.spotkit.core.mesh;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.SpotkitException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Which connection each peer pair uses: at most one established {@link PeerConnection} per peer NodeRid, and
 * at most one dial in progress. Every decision that could leave two connections is taken here, under this
 * object's lock (short, never blocking: no I/O inside). Callers act on the result (write ACCEPT or REJECT,
 * close a superseded channel) after the lock is released.
 *
 * <p>Simultaneous dial. When A and B dial each other at once, each side is both a dialer and an acceptor.
 * The acceptor decides, after the dialer proved the secret and before the dialer may use the connection
 * (it waits for ACCEPT). With its own dial to that peer still in progress, an acceptor accepts the incoming
 * connection only if the peer's NodeRid is lower (unsigned) than its own, and otherwise rejects it as
 * {@link CloseReason#DUPLICATE_CONNECTION}. Both sides apply the same rule, so exactly one connection
 * survives: the one dialed by the lower NodeRid. A dialer whose connection is rejected as a duplicate keeps
 * its {@code connect} future pending until the peer's connection is accepted here, within the handshake
 * timeout.
 *
 * <p>Restarted peer. An incoming connection from a peer with an established connection is accepted only
 * when its lifecycle generation is higher (the old connection is closed as {@link CloseReason#SUPERSEDED});
 * the same generation is a duplicate, a lower one {@link CloseReason#STALE_GENERATION}.
 */
final class PeerTable {

  private final NodeRid self;
  private final Map<NodeRid, Slot> slots = new HashMap<>();

  /** Per peer: the established connection and the dial in progress. Guarded by the table's lock. */
  private static final class Slot {
    PeerConnection established;
    Dial dial;
    /** After a failed dial: no new dial before this System.nanoTime(); 0 after a success. */
    long retryAtNanos;
    /** The current backoff, doubled per failed dial up to {@link #MAX_BACKOFF_NANOS}; 0 after a success. */
    long backoffNanos;
    /** Why the last dial failed, for the fast failures while backing off. */
    String lastFailure;
  }

  /** First wait after a failed dial before the next dial to the same peer. */
  static final long FIRST_BACKOFF_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50);
  /** Longest wait between dials to a peer that keeps failing (e.g. a node killed with -9). */
  static final long MAX_BACKOFF_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);

  /** One call of {@link MeshTransport#connect} that is dialing; its future is shared by concurrent callers. */
  static final class Dial {
    final NodeRid peer;
    final CompletableFuture<PeerConnection> future = new CompletableFuture<>();
    /** The peer rejected our dial as a duplicate; we wait for its own connection. Guarded by the table. */
    boolean awaitingPeerDial;
    /** Where this dial connects; set by the dialer before it starts. */
    java.net.SocketAddress endpoint;
    /** Fresh connects this dial made after a duplicate rejection whose peer never dialed. Guarded by the table. */
    int redials;

    Dial(final NodeRid peer) {
      this.peer = peer;
    }
  }

  /**
   * The acceptor's decision on an authenticated incoming connection.
   *
   * @param accept true to write ACCEPT.
   * @param reason the REJECT reason when not accepted.
   * @param superseded an older connection of the same peer to close, or null.
   */
  record Decision(boolean accept, CloseReason reason, PeerConnection superseded) {
  }

  PeerTable(final NodeRid self) {
    this.self = self;
  }

  /** Either an existing connection, the dial already in progress, or a new dial the caller must start. */
  synchronized Object connectOrDial(final NodeRid peer) {
    final Slot slot = slots.computeIfAbsent(peer, p -> new Slot());
    if (slot.established != null && slot.established.isOpen()) {
      return slot.established;
    }
    if (slot.dial == null) {
      final long wait = slot.retryAtNanos - System.nanoTime();
      if (slot.backoffNanos > 0 && wait > 0) { // one dial per peer at a time, and none while backing off
        final String detail = "the last dial failed (" + slot.lastFailure + "); next attempt in "
            + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(wait) + " ms";
        return CompletableFuture.failedFuture(new SpotkitException.Unavailable("cannot connect to peer " + peer
            + ": " + CloseReason.IO_ERROR + ": " + detail, new MeshConnectionException(CloseReason.IO_ERROR,
            detail)));
      }
      slot.dial = new Dial(peer);
      return slot.dial; // new: the caller starts it
    }
    return slot.dial.future;
  }

  synchronized Decision incomingAuthenticated(final PeerConnection conn) {
    final Slot slot = slots.computeIfAbsent(conn.peerRid(), p -> new Slot());
    final PeerConnection current = slot.established;
    if (current != null && current.isOpen()) {
      if (conn.peerGeneration() > current.peerGeneration()) {
        establish(slot, conn);
        return new Decision(true, null, current);
      }
      return new Decision(false, conn.peerGeneration() < current.peerGeneration()
          ? CloseReason.STALE_GENERATION : CloseReason.DUPLICATE_CONNECTION, null);
    }
    if (slot.dial != null && !slot.dial.awaitingPeerDial
        && Long.compareUnsigned(conn.peerRid().value(), self.value()) > 0) {
      return new Decision(false, CloseReason.DUPLICATE_CONNECTION, null); // our own dial wins
    }
    establish(slot, conn);
    return new Decision(true, null, null);
  }

  /** Dialer side: the peer accepted. False when another connection won meanwhile (close this one). */
  synchronized boolean outgoingAccepted(final Dial dial, final PeerConnection conn) {
    final Slot slot = slots.computeIfAbsent(conn.peerRid(), p -> new Slot());
    if (slot.established != null && slot.established.isOpen() && slot.established != conn) {
      dial.future.complete(slot.established);
      if (slot.dial == dial) {
        slot.dial = null;
      }
      return false;
    }
    if (slot.dial == dial) {
      slot.dial = null;
    }
    slot.established = conn;
    slot.backoffNanos = 0;
    slot.retryAtNanos = 0;
    dial.future.complete(conn);
    return true;
  }

  /** Dialer side: the peer rejected our dial as a duplicate. True when the dial now waits for the peer's. */
  synchronized boolean outgoingDuplicate(final Dial dial) {
    final Slot slot = slots.get(dial.peer);
    if (slot != null && slot.established != null && slot.established.isOpen()) {
      dial.future.complete(slot.established);
      if (slot.dial == dial) {
        slot.dial = null;
      }
      return false;
    }
    dial.awaitingPeerDial = true;
    return true;
  }

  /**
   * Dialer side: the wait for the peer's own connection after a duplicate rejection ended without it. True when the
   * dial should connect again: the peer may have rejected it for a connection it still thought open while this side
   * had already closed it (the peer then never dials), and by now it has seen that close. False when the dial is
   * settled (a connection arrived meanwhile, or it already ended) or used up its redials (then it failed).
   *
   * @param maxRedials the fresh connects allowed per dial.
   */
  synchronized boolean redialAfterPeerSilence(final Dial dial, final int maxRedials, final String detail) {
    if (dial.future.isDone() || !dial.awaitingPeerDial) {
      return false;
    }
    final Slot slot = slots.get(dial.peer);
    if (slot != null && slot.established != null && slot.established.isOpen()) {
      dial.future.complete(slot.established);
      if (slot.dial == dial) {
        slot.dial = null;
      }
      return false;
    }
    if (dial.redials >= maxRedials || slot == null || slot.dial != dial) {
      dialFailed(dial, CloseReason.HANDSHAKE_TIMEOUT, detail);
      return false;
    }
    dial.redials++;
    dial.awaitingPeerDial = false;
    return true;
  }

  /** The dial's channel closed: fails the dial unless it is waiting for the peer's own connection. */
  synchronized void dialChannelClosed(final Dial dial, final CloseReason reason, final String detail) {
    if (!dial.awaitingPeerDial) {
      dialFailed(dial, reason, detail);
    }
  }

  /** The dial failed (or its wait for the peer's own dial timed out); a no-op once its future completed. */
  synchronized void dialFailed(final Dial dial, final CloseReason reason, final String detail) {
    final Slot slot = slots.get(dial.peer);
    if (slot != null && slot.dial == dial) {
      slot.dial = null;
      if (reason != CloseReason.TRANSPORT_CLOSED && slot.established == null) {
        slot.backoffNanos = slot.backoffNanos == 0 ? FIRST_BACKOFF_NANOS
            : Math.min(MAX_BACKOFF_NANOS, slot.backoffNanos * 2);
        slot.retryAtNanos = System.nanoTime() + slot.backoffNanos;
        slot.lastFailure = reason + ": " + detail;
      }
    }
    dial.future.completeExceptionally(new SpotkitException.Unavailable("cannot connect to peer " + dial.peer
        + ": " + reason + ": " + detail, new MeshConnectionException(reason, detail)));
  }

  /** The connection closed; true when it was the established one of its peer. */
  synchronized boolean closed(final PeerConnection conn) {
    final Slot slot = slots.get(conn.peerRid());
    if (slot != null && slot.established == conn) {
      slot.established = null;
      return true;
    }
    return false;
  }

  synchronized PeerConnection established(final NodeRid peer) {
    final Slot slot = slots.get(peer);
    return slot == null || slot.established == null || !slot.established.isOpen() ? null : slot.established;
  }

  synchronized List<PeerConnection> established() {
    final List<PeerConnection> out = new ArrayList<>();
    for (Slot slot : slots.values()) {
      if (slot.established != null && slot.established.isOpen()) {
        out.add(slot.established);
      }
    }
    return out;
  }

  synchronized List<Dial> dials() {
    final List<Dial> out = new ArrayList<>();
    for (Slot slot : slots.values()) {
      if (slot.dial != null) {
        out.add(slot.dial);
      }
    }
    return out;
  }

  /** Makes {@code conn} the peer's connection and completes a dial of ours that waited for it. */
  private static void establish(final Slot slot, final PeerConnection conn) {
    slot.established = conn;
    slot.backoffNanos = 0;
    slot.retryAtNanos = 0;
    if (slot.dial != null) {
      slot.dial.future.complete(conn);
      slot.dial = null;
    }
  }
}
