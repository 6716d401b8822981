package dev.spotkit.core.mesh;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The handshake messages and their HMAC proofs; pure, no Netty. Each message travels in its own length-
 * prefixed frame and starts with {@code 53 4B 01 <type>} ("SK", version 1), so it can never be mistaken for
 * a framework frame ({@code 5A 4D ...}).
 *
 * <pre>
 *   dialer D                                   acceptor A
 *   HELLO      rid u64, generation u64, nonce[32], maxFrameLength u32  ->
 *          <-  CHALLENGE  rid u64, generation u64, nonce[32], maxFrameLength u32, proofA[32]
 *   (D checks A's rid is the expected one, and proofA)
 *   PROOF      proofD[32]                          ->
 *                                                     (A checks proofD, then the peer table decides)
 *          <-  ACCEPT                or   REJECT reason u8, then close
 * </pre>
 *
 * proofA = HMAC-SHA256(secret, "spotkit-mesh-v1 acceptor" || D.hello || A.hello) and proofD = the same with
 * "dialer": both nonces are covered, fresh per connection, and the two labels differ, so a proof can neither
 * be replayed nor reflected back. Proofs are compared with {@link MessageDigest#isEqual} (constant time).
 *
 * <p>{@code maxFrameLength} is the sender's {@link MeshConfig#maxFrameLength()} (1..2^31-1): each side refuses to
 * send a frame the other would refuse ({@link PeerConnection#peerMaxFrameLength()}). The field is covered by the
 * proofs. A HELLO without it (48 body bytes, the form before the field) is still accepted: that peer's limit is
 * taken as {@link MeshConfig#DEFAULT_MAX_FRAME_LENGTH} and the acceptor answers with a CHALLENGE without it too,
 * so such a dialer completes its handshake as before.
 */
final class Handshake {

  static final int NONCE_BYTES = 32;
  static final int PROOF_BYTES = 32;
  static final int HELLO = 1;
  static final int CHALLENGE = 2;
  static final int PROOF = 3;
  static final int ACCEPT = 4;
  static final int REJECT = 5;

  private static final byte M0 = 0x53;
  private static final byte M1 = 0x4B;
  private static final byte VERSION = 1;
  private static final int HEAD = 4;
  /** A HELLO body without the frame limit (the older form). */
  private static final int LEGACY_HELLO_BODY = 8 + 8 + NONCE_BYTES;
  /** A HELLO body with the frame limit. */
  private static final int HELLO_BODY = LEGACY_HELLO_BODY + 4;
  private static final byte[] ACCEPTOR_LABEL = "spotkit-mesh-v1 acceptor".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DIALER_LABEL = "spotkit-mesh-v1 dialer".getBytes(StandardCharsets.US_ASCII);
  private static final SecureRandom RANDOM = new SecureRandom();

  /**
   * A HELLO's fields (also the first part of a CHALLENGE).
   *
   * @param maxFrameLength the sender's frame limit, 1..2^31-1; 0 when the message did not carry it (older form).
   */
  record Hello(long rid, long generation, byte[] nonce, int maxFrameLength) {
    byte[] bytes() {
      final ByteBuffer b = ByteBuffer.allocate(length()).putLong(rid).putLong(generation).put(nonce);
      if (maxFrameLength != 0) {
        b.putInt(maxFrameLength);
      }
      return b.array();
    }

    int length() {
      return maxFrameLength == 0 ? LEGACY_HELLO_BODY : HELLO_BODY;
    }

    /** The peer's frame limit: the one it sent, or the default when it sent none. */
    int frameLimit() {
      return maxFrameLength == 0 ? MeshConfig.DEFAULT_MAX_FRAME_LENGTH : maxFrameLength;
    }
  }

  /** A parsed handshake message. */
  sealed interface Message permits HelloMsg, ChallengeMsg, ProofMsg, AcceptMsg, RejectMsg { }

  /** HELLO. */
  record HelloMsg(Hello hello) implements Message { }

  /** CHALLENGE. */
  record ChallengeMsg(Hello hello, byte[] proof) implements Message { }

  /** PROOF. */
  record ProofMsg(byte[] proof) implements Message { }

  /** ACCEPT. */
  record AcceptMsg() implements Message { }

  /** REJECT. */
  record RejectMsg(CloseReason reason) implements Message { }

  private Handshake() {
  }

  static byte[] nonce() {
    final byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  static boolean isHandshake(final byte[] frame) {
    return frame.length >= 2 && frame[0] == M0 && frame[1] == M1;
  }

  static byte[] hello(final Hello h) {
    return head(HELLO, h.length()).put(h.bytes()).array();
  }

  static byte[] challenge(final Hello h, final byte[] proof) {
    return head(CHALLENGE, h.length() + PROOF_BYTES).put(h.bytes()).put(proof).array();
  }

  static byte[] proof(final byte[] proof) {
    return head(PROOF, PROOF_BYTES).put(proof).array();
  }

  static byte[] accept() {
    return head(ACCEPT, 0).array();
  }

  static byte[] reject(final CloseReason reason) {
    return head(REJECT, 1).put((byte) reason.ordinal()).array();
  }

  private static ByteBuffer head(final int type, final int body) {
    return ByteBuffer.allocate(HEAD + body).put(M0).put(M1).put(VERSION).put((byte) type);
  }

  /**
   * Parses one handshake frame.
   *
   * @throws MeshConnectionException {@link CloseReason#HANDSHAKE_PROTOCOL} when the version, type or length
   *     is wrong.
   */
  static Message parse(final byte[] frame) {
    if (frame.length < HEAD || frame[2] != VERSION) {
      throw protocol("handshake frame of " + frame.length + " bytes with version "
          + (frame.length > 2 ? frame[2] : -1) + "; expected version 1");
    }
    final int type = frame[3];
    final ByteBuffer in = ByteBuffer.wrap(frame, HEAD, frame.length - HEAD);
    final int body = in.remaining();
    final boolean ok = switch (type) {
      case HELLO -> body == HELLO_BODY || body == LEGACY_HELLO_BODY;
      case CHALLENGE -> body == HELLO_BODY + PROOF_BYTES || body == LEGACY_HELLO_BODY + PROOF_BYTES;
      case PROOF -> body == PROOF_BYTES;
      case ACCEPT -> body == 0;
      case REJECT -> body == 1;
      default -> throw protocol("unknown handshake message type " + type);
    };
    if (!ok) {
      throw protocol("handshake message type " + type + " has " + body + " body bytes; expected " + switch (type) {
        case HELLO -> HELLO_BODY + " (or " + LEGACY_HELLO_BODY + ")";
        case CHALLENGE -> (HELLO_BODY + PROOF_BYTES) + " (or " + (LEGACY_HELLO_BODY + PROOF_BYTES) + ")";
        case PROOF -> String.valueOf(PROOF_BYTES);
        case ACCEPT -> "0";
        default -> "1";
      });
    }
    return switch (type) {
      case HELLO -> new HelloMsg(readHello(in, body == HELLO_BODY));
      case CHALLENGE -> new ChallengeMsg(readHello(in, body == HELLO_BODY + PROOF_BYTES), bytes(in, PROOF_BYTES));
      case PROOF -> new ProofMsg(bytes(in, PROOF_BYTES));
      case ACCEPT -> new AcceptMsg();
      default -> {
        final int ordinal = in.get() & 0xFF;
        final CloseReason[] reasons = CloseReason.values();
        yield new RejectMsg(ordinal < reasons.length ? reasons[ordinal] : CloseReason.REJECTED_BY_PEER);
      }
    };
  }

  private static Hello readHello(final ByteBuffer in, final boolean withLimit) {
    final long rid = in.getLong();
    final long generation = in.getLong();
    final byte[] nonce = bytes(in, NONCE_BYTES);
    final int limit = withLimit ? in.getInt() : 0;
    if (withLimit && limit <= 0) {
      throw protocol("handshake maxFrameLength " + Integer.toUnsignedString(limit) + " must be 1..2147483647");
    }
    return new Hello(rid, generation, nonce, limit);
  }

  private static byte[] bytes(final ByteBuffer in, final int n) {
    final byte[] b = new byte[n];
    in.get(b);
    return b;
  }

  static byte[] acceptorProof(final byte[] secret, final Hello dialer, final Hello acceptor) {
    return hmac(secret, ACCEPTOR_LABEL, dialer, acceptor);
  }

  static byte[] dialerProof(final byte[] secret, final Hello dialer, final Hello acceptor) {
    return hmac(secret, DIALER_LABEL, dialer, acceptor);
  }

  /** Constant-time comparison. */
  static boolean matches(final byte[] expected, final byte[] actual) {
    return MessageDigest.isEqual(expected, actual);
  }

  private static byte[] hmac(final byte[] secret, final byte[] label, final Hello dialer, final Hello acceptor) {
    try {
      final Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(label);
      mac.update(dialer.bytes());
      mac.update(acceptor.bytes());
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is required of every Java runtime", e);
    }
  }

  static MeshConnectionException protocol(final String detail) {
    return new MeshConnectionException(CloseReason.HANDSHAKE_PROTOCOL, detail);
  }
}
