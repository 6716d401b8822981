package dev.spotkit.relocation.wire;

import dev.spotkit.relocation.wire.EnvelopeEntries.ApplicationState;
import dev.spotkit.relocation.wire.EnvelopeEntries.PendingTimerTick;
import dev.spotkit.relocation.wire.EnvelopeEntries.SavedWork;
import dev.spotkit.relocation.wire.EnvelopeEntries.TimerRegistration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiFunction;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** jqwik generators of every relocation wire value (test only). */
final class WireArbitraries {

  private WireArbitraries() {
  }

  static Arbitrary<String> text() {
    return Arbitraries.strings().withCharRange('a', 'z').withChars('-', ':', 'é', 'ß', '字', 'Z', '0')
        .ofMinLength(1).ofMaxLength(24);
  }

  static Arbitrary<Long> positive() {
    return Arbitraries.oneOf(Arbitraries.longs().between(1, 20), Arbitraries.longs().between(1, Long.MAX_VALUE));
  }

  static Arbitrary<Long> anyLong() {
    return Arbitraries.oneOf(Arbitraries.longs().between(0, 20), Arbitraries.longs());
  }

  static Arbitrary<Long> u32() {
    return Arbitraries.oneOf(Arbitraries.longs().between(0, 20), Arbitraries.longs().between(0, 0xFFFF_FFFFL));
  }

  static Arbitrary<byte[]> bytes(final int max) {
    return Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(max);
  }

  static Arbitrary<Rid> rid() {
    return Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(12).map(Rid::of);
  }

  static Arbitrary<RelocationIdentity> identity() {
    final Arbitrary<RelocationId> id = Combinators.combine(anyLong(), positive()).as(RelocationId::new);
    final Arbitrary<CoordinatorFence> fence = Combinators.combine(text(), positive(), rid(), positive(), text())
        .as(CoordinatorFence::new);
    return Combinators.combine(id, positive(), fence).as(RelocationIdentity::new);
  }

  static Arbitrary<TargetFence> targetFence() {
    return Combinators.combine(rid(), positive(), text(), positive()).as(TargetFence::new);
  }

  static Arbitrary<ObjectIdentity> object() {
    return Arbitraries.oneOf(
        Combinators.combine(text(), positive(), positive()).as(ObjectIdentity.Actor::new),
        Combinators.combine(text(), positive(), positive()).as(ObjectIdentity.UserSpot::new),
        Combinators.combine(text(), text(), positive(), positive()).as(ObjectIdentity.InstanceSpot::new));
  }

  static Arbitrary<Role> role() {
    return Arbitraries.of(Role.class);
  }

  static Arbitrary<RecordSource> source() {
    return Arbitraries.oneOf(
        Combinators.combine(rid(), positive(), text(), positive()).as(RecordSource.Node::new),
        Combinators.combine(Arbitraries.integers().between(2, 255), bytes(20)).as(RecordSource.Opaque::new));
  }

  static Arbitrary<FrozenRecord> record() {
    final Arbitrary<TargetSpot> target = Combinators.combine(text(), positive(), rid(), positive(), positive(),
        positive()).as(TargetSpot::new);
    final Arbitrary<ApplicationPayload> payload = Combinators.combine(text(), text(), bytes(40))
        .as(ApplicationPayload::new);
    final Arbitrary<byte[]> metadata = bytes(16).injectNull(0.5);
    final Arbitrary<OperationId> operation = Combinators.combine(anyLong(), positive()).as(OperationId::new);
    final Arbitrary<Long> route = Arbitraries.oneOf(Arbitraries.just(0L), positive());
    return Combinators.combine(source(), metadata, operation, u32(), route, target, payload)
        .as((s, m, o, k, r, t, p) -> new FrozenRecord(s, m, o, k, r, new RecordBody.SpotRequest(t, p)));
  }

  static Arbitrary<RelocationFrame> frame() {
    final Arbitrary<RelocationFrame> ready = Combinators.combine(identity(), targetFence(), object(), role())
        .as(RelocationFrame.Ready::new);
    final Arbitrary<RelocationFrame> failed = Combinators.combine(identity(), targetFence(), object(), role(),
        Arbitraries.longs().between(1, 0xFFFF_FFFFL)).as(RelocationFrame.Failed::new);
    final Arbitrary<RelocationFrame> data = Combinators.combine(identity(), role(), object(), record())
        .as(RelocationFrame.Data::new);
    final Arbitrary<RelocationFrame> cutover = Combinators.combine(identity(), role(), object(),
        Arbitraries.longs().between(0, Long.MAX_VALUE), u32()).as(RelocationFrame.Cutover::new);
    final Arbitrary<RelocationFrame> state = Combinators.combine(identity(), role(), object(), u32(), bytes(64))
        .as(RelocationFrame.State::new);
    return Arbitraries.oneOf(ready, failed, data, cutover, prepare(), state);
  }

  static Arbitrary<RelocationFrame> prepare() {
    final Arbitrary<long[]> numbers = Combinators.combine(Arbitraries.longs().between(0, Long.MAX_VALUE), u32(),
        u32(), anyLong()).as((a, b, c, d) -> new long[] {a, b, c, d});
    return Combinators.combine(identity(), targetFence(), role(), object(), rid(), positive(), numbers)
        .as((i, t, r, o, rid, g, n) -> new RelocationFrame.Prepare(i, t, r, o, rid, g, n[0], n[1], n[2], n[3]));
  }

  private static <T> List<T> canonical(final List<T> in, final Comparator<T> order) {
    final List<T> sorted = new ArrayList<>(in);
    sorted.sort(order);
    final List<T> out = new ArrayList<>();
    for (T t : sorted) {
      if (out.isEmpty() || order.compare(out.get(out.size() - 1), t) != 0) {
        out.add(t);
      }
    }
    return out;
  }

  private static Arbitrary<Long> participant() {
    return Arbitraries.longs().between(1, 6);
  }

  static Arbitrary<RelocationEnvelope> envelope() {
    final Arbitrary<List<ApplicationState>> states = Combinators.combine(participant(), bytes(30).injectNull(0.3))
        .as(ApplicationState::new).list().ofMaxSize(6).map(l -> canonical(l, EnvelopeOrder::compare));
    final Arbitrary<List<SavedWork>> work = Combinators.combine(participant(), anyLong(), record())
        .as(SavedWork::new).list().ofMaxSize(4).map(l -> canonical(l, EnvelopeOrder::compare));
    final Arbitrary<List<TimerRegistration>> timers = Combinators.combine(participant(), text(), text(),
        anyLong(), Arbitraries.integers().between(0, 255), anyLong(), Arbitraries.of(true, false),
        Combinators.combine(anyLong(), anyLong(), anyLong()).as((a, b, c) -> new long[] {a, b, c}))
        .as((p, n, h, per, o, m, s, l) -> new TimerRegistration(p, n, h, per, o, m, s, l[0], l[1], l[2]))
        .list().ofMaxSize(4).map(l -> canonical(l, EnvelopeOrder::compare));
    final Arbitrary<List<PendingTimerTick>> ticks = Combinators.combine(participant(), anyLong(), text(), anyLong(),
        anyLong(), anyLong(), anyLong()).as(PendingTimerTick::new).list().ofMaxSize(4)
        .map(l -> canonical(l, EnvelopeOrder::compare));
    final Arbitrary<RelocationId> id = Combinators.combine(anyLong(), positive()).as(RelocationId::new);
    return Combinators.combine(id, object(), anyLong(), states, work, timers, ticks).as(RelocationEnvelope::new);
  }

  /** Applies one of three byte mutations (overwrite, insert, delete) at a random place. */
  static byte[] mutate(final byte[] in, final int kind, final int where, final byte value) {
    if (in.length == 0) {
      return new byte[] {value};
    }
    final int at = Math.floorMod(where, in.length);
    final BiFunction<Integer, Integer, byte[]> splice = (cut, skip) -> {
      final byte[] out = new byte[in.length - skip + (skip == 0 ? 1 : 0)];
      int o = 0;
      for (int i = 0; i < in.length; i++) {
        if (i == cut && skip == 0) {
          out[o++] = value;
        }
        if (i == cut && skip == 1) {
          continue;
        }
        out[o++] = in[i];
      }
      return out;
    };
    return switch (Math.floorMod(kind, 3)) {
      case 0 -> {
        final byte[] out = in.clone();
        out[at] = (byte) (out[at] == value ? value + 1 : value);
        yield out;
      }
      case 1 -> splice.apply(at, 0);
      default -> splice.apply(at, 1);
    };
  }
}
