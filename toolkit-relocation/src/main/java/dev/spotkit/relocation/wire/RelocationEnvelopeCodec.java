package dev.spotkit.relocation.wire;

import dev.spotkit.relocation.wire.EnvelopeEntries.ApplicationState;
import dev.spotkit.relocation.wire.EnvelopeEntries.PendingTimerTick;
import dev.spotkit.relocation.wire.EnvelopeEntries.SavedWork;
import dev.spotkit.relocation.wire.EnvelopeEntries.TimerRegistration;
import java.util.ArrayList;
import java.util.List;

/**
 * Encoder and decoder of the relocation-envelope-v1 stream (spec 001 section 4.2; layout in
 * {@link RelocationEnvelope}). The encoding is canonical: one envelope has exactly one byte form, and the decoder
 * accepts only that form. Byte-identical to {@code relocation-envelope-v1.json}. Pure functions, any thread.
 *
 * <p>Refusals, all {@link WireFormatException}: a field past the end ({@code truncated-field}); a zero id,
 * a bool other than 0/1, an unknown discriminator, bad UTF-8 or a participantId above the inventory
 * ({@code invalid-field}); an entry ordered before its predecessor ({@code not-sorted}); an entry with the same
 * key as its predecessor ({@code duplicate-entry}); a stream longer than the caller's limit ({@code oversized});
 * bytes after pendingTimerTicks ({@code trailing-byte}). Vector counts are never used to pre-allocate, so a
 * forged count costs at most the bytes actually present.
 */
public final class RelocationEnvelopeCodec {

  private static final String NAME = "relocationEnvelope";

  private RelocationEnvelopeCodec() {
  }

  /**
   * Encodes the stream into one array of exactly its size: the envelope is measured first
   * ({@link #encodedLength}), then written once, so every state byte is copied once and nothing is regrown.
   *
   * @param envelope the envelope.
   * @return the stream bytes (what command 40 describes and command 52 chunks carry); a new array the caller owns.
   * @throws IllegalArgumentException when the stream would exceed 2^31-9 bytes (one Java array).
   */
  public static byte[] encode(final RelocationEnvelope envelope) {
    final WireOut out = WireOut.exact(exactSize(envelope));
    write(envelope, out);
    return out.toByteArray();
  }

  /**
   * Encodes like {@link #encode} and computes the stream's CRC-32C in the same pass: each large bulk write (an
   * application state) is checksummed block by block right after the block is copied, so the stream is written
   * once and not read again from memory. Every state byte is copied exactly once (an
   * {@link EnvelopeEntries.ApplicationState#ofParts} state included).
   *
   * @param envelope the envelope.
   * @return the stream (exactly {@code encode(envelope)}) and its CRC-32C; the array is new and the caller's.
   * @throws IllegalArgumentException when the stream would exceed 2^31-9 bytes (one Java array).
   */
  public static EncodedStream encodeChecksummed(final RelocationEnvelope envelope) {
    final WireOut out = encodeChecksummedWriter(envelope);
    final long crc = out.crc32c();
    return new EncodedStream(out.toByteArray(), crc);
  }

  /** Encodes into a {@link WireOut#checksummed} writer: the stream and its CRC-32C in one pass. */
  static WireOut encodeChecksummedWriter(final RelocationEnvelope envelope) {
    final WireOut out = WireOut.checksummed(exactSize(envelope));
    write(envelope, out);
    return out;
  }

  private static int exactSize(final RelocationEnvelope envelope) {
    final long size = encodedLength(envelope);
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("relocation-envelope-v1 stream of " + size + " bytes exceeds one array ("
          + (Integer.MAX_VALUE - 8) + " bytes)");
    }
    return (int) size;
  }

  /**
   * The length of {@link #encode}'s result, without encoding (state bytes are counted, not read).
   *
   * @param envelope the envelope.
   * @return bytes of the stream.
   */
  public static long encodedLength(final RelocationEnvelope envelope) {
    final WireOut count = WireOut.counting();
    write(envelope, count);
    return count.counted();
  }

  private static void write(final RelocationEnvelope envelope, final WireOut out) {
    envelope.relocation().writeTo(out);
    ObjectIdentityCodec.writeTo(envelope.object(), out);
    out.u64(envelope.applicationVersion());
    out.u32(envelope.applicationStates().size());
    for (ApplicationState s : envelope.applicationStates()) {
      out.u64(s.participantId());
      final byte[] state = s.arrayUnsafe();
      out.bool8(state != null);
      if (state != null) {
        out.u64(8L + s.stateLength());
        out.u64(s.stateLength());
        final byte[] head = s.headUnsafe();
        if (head.length > 0) {
          out.bytes(head, 0, head.length);
        }
        out.bytes(state, s.offset(), s.bodyLength());
      } else {
        out.u64(0);
      }
    }
    out.u32(envelope.savedWork().size());
    for (SavedWork w : envelope.savedWork()) {
      out.u64(w.participantId());
      out.u64(w.order());
      w.record().writeTo(out);
    }
    out.u32(envelope.timerRegistrations().size());
    for (TimerRegistration t : envelope.timerRegistrations()) {
      out.u64(t.participantId());
      out.text8(t.name());
      out.text8(t.handlerType());
      out.u64(t.periodMilliseconds());
      out.u8(t.overrunPolicy());
      out.u64(t.maxCatchUpTicks());
      out.bool8(t.stopOnUnhandledException());
      out.u64(t.lastCompletedDeliveryIndex());
      out.u64(t.lastCompletedScheduledIndex());
      out.u64(t.nextScheduledAtUnixMilliseconds());
    }
    out.u32(envelope.pendingTimerTicks().size());
    for (PendingTimerTick p : envelope.pendingTimerTicks()) {
      out.u64(p.participantId());
      out.u64(p.order());
      out.text8(p.timerName());
      out.u64(p.deliveryIndex());
      out.u64(p.scheduledIndex());
      out.u64(p.scheduledAtUnixMilliseconds());
      out.u64(p.skippedTicks());
    }
  }

  /**
   * Decodes a stream without a participant bound or size limit beyond the array itself.
   *
   * @param stream the whole stream; only read, not kept.
   * @return the envelope.
   * @throws WireFormatException for truncated, invalid, reordered, duplicated or trailing input.
   */
  public static RelocationEnvelope decode(final byte[] stream) {
    return decode(stream, Long.MAX_VALUE, Integer.MAX_VALUE);
  }

  /**
   * Decodes a stream, checking it against the target's participant inventory and a size limit.
   *
   * @param stream the whole stream; only read, not kept.
   * @param participantCount the inventory size (authority keys the target read); participantId must be in
   *     1..participantCount.
   * @param maxStreamBytes the largest stream accepted, in bytes.
   * @return the envelope.
   * @throws WireFormatException {@code oversized} when the stream is longer than {@code maxStreamBytes};
   *     {@code invalid-field} for a participantId above {@code participantCount}; otherwise as
   *     {@link #decode(byte[])}.
   */
  public static RelocationEnvelope decode(final byte[] stream, final long participantCount,
      final int maxStreamBytes) {
    return decode(stream, participantCount, maxStreamBytes, false);
  }

  /**
   * Decodes a stream whose ownership the caller hands over, without copying the application states: each
   * {@link ApplicationState} of the result is a read-only view of its bytes inside {@code stream}. Checks as
   * {@link #decode(byte[], long, int)}. Use it for an array nobody else holds, e.g. the payload of
   * {@link ChunkOutcome.Complete}.
   *
   * @param stream the whole stream; from this call on it belongs to the returned envelope and must never be
   *     modified (the envelope's immutability rests on that), also not when decoding fails.
   * @param participantCount the inventory size; participantId must be in 1..participantCount.
   * @param maxStreamBytes the largest stream accepted, in bytes.
   * @return the envelope, sharing {@code stream}.
   * @throws WireFormatException as {@link #decode(byte[], long, int)}.
   */
  public static RelocationEnvelope decodeOwned(final byte[] stream, final long participantCount,
      final int maxStreamBytes) {
    return decode(stream, participantCount, maxStreamBytes, true);
  }

  private static RelocationEnvelope decode(final byte[] stream, final long participantCount,
      final int maxStreamBytes, final boolean view) {
    final WireIn in = new WireIn(stream, NAME);
    if (stream.length > maxStreamBytes) {
      throw in.error(WireError.OVERSIZED, "stream", 0, stream.length + " bytes", "at most "
          + maxStreamBytes + " bytes");
    }
    final RelocationId relocation = RelocationId.read(in, "relocation");
    final ObjectIdentity object = ObjectIdentityCodec.read(in, "object");
    final long applicationVersion = in.u64("applicationVersion");
    final Reader r = new Reader(in, participantCount, view ? stream : null);
    final List<ApplicationState> states = r.states();
    final List<SavedWork> work = r.savedWork();
    final List<TimerRegistration> timers = r.timers();
    final List<PendingTimerTick> ticks = r.ticks();
    in.expectEnd();
    return new RelocationEnvelope(relocation, object, applicationVersion, states, work, timers, ticks);
  }

  /** Reads the four vectors, checking participant range and canonical order entry by entry. */
  private static final class Reader {
    private final WireIn in;
    private final long participantCount;
    /** The stream when states are views of it; null when each state gets its own copy. */
    private final byte[] viewOf;

    Reader(final WireIn in, final long participantCount, final byte[] viewOf) {
      this.in = in;
      this.participantCount = participantCount;
      this.viewOf = viewOf;
    }

    private long participant(final String field) {
      final int at = in.position();
      final long id = in.nonZeroU64(field);
      if (id > participantCount) {
        throw in.error(WireError.INVALID_FIELD, field, at, "value " + id, "1.." + participantCount
            + " (participant inventory)");
      }
      return id;
    }

    private void order(final String field, final int at, final int comparison) {
      if (comparison == 0) {
        throw in.error(WireError.DUPLICATE_ENTRY, field, at, "same key as the previous entry",
            "unique keys");
      }
      if (comparison > 0) {
        throw in.error(WireError.NOT_SORTED, field, at, "key below the previous entry's",
            "ascending keys");
      }
    }

    List<ApplicationState> states() {
      final long count = in.u32("applicationStates.count");
      final List<ApplicationState> list = new ArrayList<>();
      for (long i = 0; i < count; i++) {
        final String f = "applicationStates[" + i + "]";
        final int at = in.position();
        final long id = participant(f + ".participantId");
        final boolean has = in.bool8(f + ".hasState");
        final int unionAt = in.position();
        final long declared = in.u64(f + ".applicationState.length");
        final int start = in.position();
        ApplicationState entry = null;
        if (has) {
          final int lengthAt = in.position();
          final long length = in.u64(f + ".applicationState.payload.length");
          if (length < 0 || length > in.remaining()) {
            throw in.error(WireError.TRUNCATED_FIELD, f + ".applicationState.payload", lengthAt,
                "declares " + Long.toUnsignedString(length) + " bytes, " + in.remaining() + " left", "");
          }
          if (viewOf != null) {
            entry = ApplicationState.view(id, viewOf, in.skip(f + ".applicationState.payload", length), (int) length);
          } else {
            entry = ApplicationState.view(id, in.bytes(f + ".applicationState.payload", length), 0, (int) length);
          }
        } else {
          entry = new ApplicationState(id, null);
        }
        if (declared < 0 || declared != in.position() - start) {
          throw in.error(WireError.INVALID_FIELD, f + ".applicationState.length", unionAt, "declares "
              + Long.toUnsignedString(declared) + " bytes, fields hold " + (in.position() - start), "");
        }
        if (!list.isEmpty()) {
          order(f, at, EnvelopeOrder.compare(list.get(list.size() - 1), entry));
        }
        list.add(entry);
      }
      return list;
    }

    List<SavedWork> savedWork() {
      final long count = in.u32("savedWork.count");
      final List<SavedWork> list = new ArrayList<>();
      for (long i = 0; i < count; i++) {
        final String f = "savedWork[" + i + "]";
        final int at = in.position();
        final long id = participant(f + ".participantId");
        final long order = in.u64(f + ".order");
        final SavedWork entry = new SavedWork(id, order, FrozenRecord.read(in, f + ".record"));
        if (!list.isEmpty()) {
          order(f, at, EnvelopeOrder.compare(list.get(list.size() - 1), entry));
        }
        list.add(entry);
      }
      return list;
    }

    List<TimerRegistration> timers() {
      final long count = in.u32("timerRegistrations.count");
      final List<TimerRegistration> list = new ArrayList<>();
      for (long i = 0; i < count; i++) {
        final String f = "timerRegistrations[" + i + "]";
        final int at = in.position();
        final TimerRegistration entry = new TimerRegistration(participant(f + ".participantId"),
            in.text8(f + ".name"), in.text8(f + ".handlerType"), in.u64(f + ".periodMilliseconds"),
            in.u8(f + ".overrunPolicy"), in.u64(f + ".maxCatchUpTicks"), in.bool8(f + ".stopOnUnhandledException"),
            in.u64(f + ".lastCompletedDeliveryIndex"), in.u64(f + ".lastCompletedScheduledIndex"),
            in.u64(f + ".nextScheduledAtUnixMilliseconds"));
        if (!list.isEmpty()) {
          order(f, at, EnvelopeOrder.compare(list.get(list.size() - 1), entry));
        }
        list.add(entry);
      }
      return list;
    }

    List<PendingTimerTick> ticks() {
      final long count = in.u32("pendingTimerTicks.count");
      final List<PendingTimerTick> list = new ArrayList<>();
      for (long i = 0; i < count; i++) {
        final String f = "pendingTimerTicks[" + i + "]";
        final int at = in.position();
        final PendingTimerTick entry = new PendingTimerTick(participant(f + ".participantId"), in.u64(f + ".order"),
            in.text8(f + ".timerName"), in.u64(f + ".deliveryIndex"), in.u64(f + ".scheduledIndex"),
            in.u64(f + ".scheduledAtUnixMilliseconds"), in.u64(f + ".skippedTicks"));
        if (!list.isEmpty()) {
          order(f, at, EnvelopeOrder.compare(list.get(list.size() - 1), entry));
        }
        list.add(entry);
      }
      return list;
    }
  }
}
