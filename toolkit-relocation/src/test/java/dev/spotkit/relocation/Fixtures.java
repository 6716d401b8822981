package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.CoordinatorFence;
import dev.spotkit.relocation.wire.ObjectIdentity;
import dev.spotkit.relocation.wire.RelocationCodec;
import dev.spotkit.relocation.wire.RelocationFrame;
import dev.spotkit.relocation.wire.RelocationId;
import dev.spotkit.relocation.wire.RelocationIdentity;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.relocation.wire.Role;
import dev.spotkit.relocation.wire.TargetFence;
import java.nio.ByteBuffer;
import java.util.List;

/** Shared values and small helpers for unit tests. */
final class Fixtures {
  static final CoordinatorFence FENCE = new CoordinatorFence("owner-a", 1, Rid.ofUtf8("node-a"), 1, "v1");
  static final RelocationIdentity ID = new RelocationIdentity(new RelocationId(1, 2), 5, FENCE);
  static final RelocationIdentity OTHER = new RelocationIdentity(new RelocationId(1, 2), 6, FENCE);
  static final String OBJECT = "actor-1";
  static final ObjectIdentity OBJECT_ID = new ObjectIdentity.Actor(OBJECT, 1, 1);
  static final TargetFence TARGET_FENCE = new TargetFence(Rid.ofUtf8("node-b"), 1, "owner-b", 1);
  static final TargetEvent.CasPlan PLAN = new TargetEvent.CasPlan("authority/actor-1", "v1", "owner:node-b");
  static final RelocationSettings SETTINGS = new RelocationSettings(RelocationSettings.DEFAULT_CHUNK_LIMIT, 4,
      1_000, 30_000, 0);

  private Fixtures() {
  }

  static Message send(final long n) {
    return Message.send(ByteBuffer.allocate(8).putLong(n).array());
  }

  static Message request(final long n) {
    return Message.request(n, 100 + n, 50_000 + n, ByteBuffer.allocate(8).putLong(n).array());
  }

  static <T> List<T> only(final List<? extends Action> actions, final Class<T> type) {
    return actions.stream().filter(type::isInstance).map(type::cast).toList();
  }

  static List<Frame> frames(final List<? extends Action> actions) {
    return only(actions, Action.Send.class).stream().map(Action.Send::frame).toList();
  }

  static List<String> codes(final List<? extends Action> actions) {
    return only(actions, Action.Log.class).stream().map(Action.Log::code).toList();
  }

  static TargetEvent.RestoreRequested restore(final RelocationIdentity id, final byte[] payload, final int chunks,
      final long connection, final long deadlineMs) {
    return new TargetEvent.RestoreRequested(prepare(id, payload.length, chunks, RelayChecksum.ofBytes(payload)),
        OBJECT, connection, deadlineMs, PLAN, true);
  }

  /** The command 40 of a manifest, with this fixture's fences and object. */
  static RelocationFrame.Prepare prepare(final RelocationIdentity id, final long length, final long chunks,
      final long crc32c) {
    return new RelocationFrame.Prepare(id, TARGET_FENCE, Role.SOURCE, OBJECT_ID, Rid.ofUtf8("node-a"), 1, length,
        chunks, crc32c, 1);
  }

  /** A command 52 as the target receives it: encoded, then decoded in place from the frame bytes. */
  static TargetEvent.ChunkArrived chunk(final RelocationIdentity id, final long connection, final long ordinal,
      final byte[] bytes) {
    final byte[] frame = RelocationCodec.encode(new RelocationFrame.State(id, Role.SOURCE, OBJECT_ID, ordinal,
        bytes));
    return new TargetEvent.ChunkArrived(connection, RelocationCodec.decodeStateView(frame));
  }

  /** A target that has restored {@code saved} and sent its relay-ready reply at time 0; chunks of 4 bytes. */
  static TargetUnits readyTarget(final List<Message> saved, final List<? super TargetAction> sink) {
    final TargetUnits units = new TargetUnits(SETTINGS, 0);
    final byte[] payload = "0123456789".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    sink.addAll(units.handle(restore(ID, payload, 3, 1, 10_000)));
    sink.addAll(units.handle(chunk(ID, 1, 0, "0123".getBytes())));
    sink.addAll(units.handle(chunk(ID, 1, 1, "4567".getBytes())));
    sink.addAll(units.handle(chunk(ID, 1, 2, "89".getBytes())));
    sink.addAll(units.handle(new TargetEvent.RestoreFinished(ID, saved)));
    sink.addAll(units.handle(new TargetEvent.RelayReadySent(ID, 0)));
    return units;
  }
}
