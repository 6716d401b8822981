package dev.spotkit.core.internal.creation;

import dev.spotkit.core.internal.runtime.JsonCopier;
import dev.spotkit.core.internal.runtime.ReplyErrors;
import dev.spotkit.core.wire.Payloads;

import dev.spotkit.core.wire.Rids;

import static org.assertj.core.api.Assertions.assertThat;

import dev.spotkit.core.Actor;
import dev.spotkit.core.ActorContext;
import dev.spotkit.core.ActorCreation;
import dev.spotkit.core.ActorHandlers;
import dev.spotkit.core.CreateDecision;
import dev.spotkit.core.Deadline;
import dev.spotkit.core.EmptyRequest;
import dev.spotkit.core.EntrySpot;
import dev.spotkit.core.EntrySpotContext;
import dev.spotkit.core.MeshNode;
import dev.spotkit.core.NodeRid;
import dev.spotkit.core.OperationId;
import dev.spotkit.core.Spec;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.CreationTerminalRecord;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.NodeCapacityRecord;
import dev.spotkit.core.location.NodeDirectory;
import dev.spotkit.core.location.NodePeer;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.PlacementBatches;
import dev.spotkit.core.location.PlacementKind;
import dev.spotkit.core.mesh.MeshConfig;
import dev.spotkit.core.mesh.MeshListener;
import dev.spotkit.core.mesh.MeshTransport;
import dev.spotkit.core.mesh.PeerConnection;
import dev.spotkit.core.wire.ActorCreate;
import dev.spotkit.core.wire.CreateResult;
import dev.spotkit.core.wire.CreationCodec;
import dev.spotkit.core.wire.OperationKind;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyCodec;
import dev.spotkit.core.wire.ReplyTail;
import dev.spotkit.core.wire.ReservationFence;
import dev.spotkit.relocation.wire.Rid;
import dev.spotkit.core.wire.TerminalResult;
import dev.spotkit.core.wire.WireActorRef;
import dev.spotkit.store.InMemoryLocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.testkit.TestMesh;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Remote creation at the protocol level (spec 002 section 7): this test is the coordinator. It reserves the row
 * for one real node with {@link PlacementBatches}, sends command 49 over its own {@link MeshTransport} and reads
 * the one command 20 with {@link ReplyCodec}, as {@code RemoteCreations.requestCreation} does.
 */
class RemoteCreationProtocolTest {
  private static final String SECRET = "protocol-test-cluster-secret-0123";
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Map<String, AtomicInteger> FACTORY_RUNS = new ConcurrentHashMap<>();
  /** ActorIds whose next factory run throws. */
  private static final java.util.Set<String> FAIL_ONCE = ConcurrentHashMap.newKeySet();

  /** Why the Entry Spot declined. */
  record Refused(String why) {
  }

  /** Counts its factory runs per ActorId. */
  static final class Counted implements Actor {
    Counted(final ActorContext ctx) {
      FACTORY_RUNS.computeIfAbsent(ctx.self().id().value(), k -> new AtomicInteger()).incrementAndGet();
      if (FAIL_ONCE.remove(ctx.self().id().value())) {
        throw new IllegalStateException("factory refuses once");
      }
    }

    @Override
    public void configure(final ActorHandlers on) {
    }
  }

  /** Declines every actor whose id starts with "no-". */
  static final class DecliningEntry implements EntrySpot {
    private final EntrySpotContext ctx;

    DecliningEntry(final EntrySpotContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public EntrySpotContext context() {
      return ctx;
    }

    @Override
    public CreateDecision onCreateActor(final ActorCreation creation) {
      return creation.actor().id().value().startsWith("no-") ? CreateDecision.decline(new Refused("full"))
          : CreateDecision.approve();
    }
  }

  private final InMemoryLocationStore store = new InMemoryLocationStore();
  private final PlacementBatches batches = new PlacementBatches(store, WAIT, PlacementBatches.DEFAULT_ATTEMPTS);
  private final NodeRid fakeRid = new NodeRid(0x0fa4_e000_0000_0001L);
  private final long fakeGeneration = 7;
  private TestMesh mesh;
  private MeshNode node;
  private MeshTransport fake;
  private PeerConnection connection;
  private NodePeer peer;

  @BeforeEach
  void start() throws Exception {
    // one real node on the test kit, with the secret of this hand-written coordinator
    mesh = TestMesh.builder().meshName("mesh").locationStore(store).closeTimeout(Duration.ofSeconds(5))
        .node(b -> b.requestTimeout(WAIT)).mesh((m, i) -> m.clusterSecret(SECRET))
        .objectServer(s -> s.entrySpot(DecliningEntry::new)
            .actor("counted", Counted::new, a -> a.disableRelocation()))
        .start(1);
    node = mesh.node(0);
    final List<NodePeer> peers = new NodeDirectory(store, WAIT).readMesh("mesh");
    peer = peers.stream().filter(p -> p.routingIdHex().equals(node.nodeRid().hex())).findFirst().orElseThrow();
    fake = MeshTransport.start(MeshConfig.builder(fakeRid, fakeGeneration,
        SECRET.getBytes(StandardCharsets.UTF_8)).build(), new MeshListener() {
          @Override
          public void onFrame(final PeerConnection from, final byte[] frame) {
            // this coordinator only sends requests; their replies complete PeerConnection.request
          }
        });
    final int colon = peer.endpoint().lastIndexOf(':');
    assertThat(peer.endpoint().substring(0, colon)).isEqualTo("127.0.0.1");
    connection = fake.connect(new InetSocketAddress("127.0.0.1",
        Integer.parseInt(peer.endpoint().substring(colon + 1))), node.nodeRid()).get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() {
    if (fake != null) {
      fake.close();
    }
    if (mesh != null) {
      mesh.close();
    }
    FACTORY_RUNS.clear();
    FAIL_ONCE.clear();
  }

  // ------------------------------------------------------------------ the coordinator's steps

  /** A reserved row and the fence RemoteCreations.requestCreation would send for it. */
  private record Reserved(OperationId operation, ReservationFence fence, StoreBytes row) {
  }

  private Reserved reserve(final String actorId) throws Exception {
    final OperationId operation = OperationId.random();
    final byte[] request = Payloads.toBytes(new JsonCopier().encode("creation request", EmptyRequest.INSTANCE,
        1 << 20));
    final AuthorityRecord.PendingCreation pending = new AuthorityRecord.PendingCreation(
        HexFormat.of().toHexDigits(operation.high()) + HexFormat.of().toHexDigits(operation.low()),
        "inline-v1:" + Base64.getUrlEncoder().withoutPadding().encodeToString(request),
        HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(request)), request.length);
    final PlacementBatches.Reservation reservation = batches.reserve(new PlacementBatches.ReserveRequest(
        ObjectKey.actor(actorId), PlacementKind.ACTOR, "counted", PlacementBatches.Target.of(peer),
        StoreBytes.empty(), pending));
    assertThat(reservation).isInstanceOf(PlacementBatches.Reservation.Reserved.class);
    final PlacementBatches.Reservation.Reserved reserved = (PlacementBatches.Reservation.Reserved) reservation;
    final AuthorityRecord row = reserved.record();
    final ReservationFence fence = new ReservationFence(row.pendingCreation().reservationId(),
        reserved.version().value(), row.objectGeneration().value(), row.authorityOwnerGeneration().value(),
        Rids.ofHex(peer.routingIdHex()), peer.lifecycleGeneration(), peer.ownerId(), peer.leaseGeneration().value(),
        1);
    return new Reserved(operation, fence, row.encode());
  }

  /** Sends one command 49 and decodes its command 20; checks the reply carries this request's correlation. */
  private Reply send(final OperationId operation, final long sourceGeneration, final String actorId,
      final ReservationFence fence, final long deadlineUnixMs) throws Exception {
    final AtomicLong correlation = new AtomicLong();
    final byte[] frame = connection.request(c -> {
      correlation.set(c);
      return CreationCodec.encode(new ActorCreate(c, dev.spotkit.core.wire.OperationIds.wire(operation), Rids.of(fakeRid), sourceGeneration, actorId,
          "counted", fence, deadlineUnixMs));
    }, Deadline.after(WAIT)).get(15, TimeUnit.SECONDS);
    final Reply reply = ReplyCodec.decode(frame, OperationKind.ACTOR_CREATE);
    assertThat(reply.correlation()).isEqualTo(correlation.get());
    return reply;
  }

  private ReadResult read(final String key) {
    return store.read(key).toCompletableFuture().join();
  }

  private String rowKey(final String actorId) {
    return ObjectKey.actor(actorId).logicalKey().preimage();
  }

  private String terminalKey(final OperationId operation, final long sourceGeneration) {
    return RemoteCreations.terminalKey(Rids.of(fakeRid), sourceGeneration, operation);
  }

  private NodeCapacityRecord capacity() {
    return NodeCapacityRecord.decode(((ReadResult.Found) read(LocationKeys.nodeCapacity("mesh",
        peer.routingIdHex()).preimage())).value());
  }

  private static long deadlineUnixMs() {
    return System.currentTimeMillis() + WAIT.toMillis();
  }

  private static int runs(final String actorId) {
    return FACTORY_RUNS.getOrDefault(actorId, new AtomicInteger()).get();
  }

  // ------------------------------------------------------------------ tests

  @Test
  @Spec("MEM-04")
  @Spec("LOC-11")
  void theSameOperationAgainReplaysItsCreatedResultAndTheFactoryRanOnce() throws Exception {
    final Reserved r = reserve("alice");
    final long deadline = deadlineUnixMs();
    final Reply first = send(r.operation(), fakeGeneration, "alice", r.fence(), deadline);
    final Reply expectedTail = Reply.ok(first.correlation(), new ReplyTail.ActorCreated(CreateResult.CREATED,
        new WireActorRef("alice", r.fence().objectGeneration())));
    assertThat(first).isEqualTo(expectedTail);
    final ReadResult.Found ready = (ReadResult.Found) read(rowKey("alice"));
    assertThat(AuthorityRecord.decode(ready.value()).allocation().state()).isEqualTo(AuthorityRecord.State.ACTIVE);
    assertThat(AuthorityRecord.decode(ready.value()).objectGeneration().value())
        .isEqualTo(r.fence().objectGeneration());
    final ReadResult.Found terminal = (ReadResult.Found) read(terminalKey(r.operation(), fakeGeneration));
    assertThat(CreationTerminalRecord.decode(terminal.value()).result())
        .isEqualTo(CreationTerminalRecord.Result.CREATED);
    // kept 5 minutes after the original deadline (store clock = system clock here; the retention is a duration
    // counted from the node's clock, applied from StoreNow, hence the tolerance both ways)
    assertThat(terminal.expiresAtMillis()).isPresent();
    final long keepUntil = deadline + Duration.ofMinutes(5).toMillis();
    assertThat(terminal.expiresAtMillis().getAsLong()).isBetween(keepUntil - 2_000, keepUntil + 2_000);

    // the answer was "lost": the same (source NodeRid, source generation, OperationId) again, new correlation
    final Reply again = send(r.operation(), fakeGeneration, "alice", r.fence(), deadline);
    assertThat(again.correlation()).isNotEqualTo(first.correlation());
    assertThat(again).isEqualTo(Reply.ok(again.correlation(), expectedTail.tail()));
    assertThat(runs("alice")).isEqualTo(1);
    assertThat(((ReadResult.Found) read(rowKey("alice"))).value()).isEqualTo(ready.value());
    assertThat(((ReadResult.Found) read(rowKey("alice"))).version()).isEqualTo(ready.version());

    // another source run with the same OperationId is another request: no replay, and no second factory
    final Reply other = send(r.operation(), fakeGeneration + 1, "alice", r.fence(), deadline);
    assertThat(other.terminalResult()).isNotEqualTo(TerminalResult.OK);
    assertThat(runs("alice")).isEqualTo(1);
    assertThat(read(terminalKey(r.operation(), fakeGeneration + 1))).isInstanceOf(ReadResult.Missing.class);
  }

  @Test
  void aCreatingRowWhoseCommandNeverArrivedIsResumedByTheNextCallerAndTheFactoryRunsOnce() throws Exception {
    // a coordinator reserved the row for the live node and its command 49 never arrived (lost on a connection
    // that closed, or refused past its deadline): the row stays Creating with the target's valid lease
    final Reserved r = reserve("stuck");
    assertThat(AuthorityRecord.decode(((ReadResult.Found) read(rowKey("stuck"))).value()).allocation().state())
        .isEqualTo(AuthorityRecord.State.RESERVED);

    // the next caller waits RESUME_AFTER, then sends the reservation to its target again: the stored request runs
    final dev.spotkit.core.CreateOutcome<dev.spotkit.core.ActorRef> outcome = node.actors()
        .getOrCreate("stuck", "counted", EmptyRequest.INSTANCE).awaitOutcome();
    assertThat(outcome).isInstanceOf(dev.spotkit.core.CreateOutcome.Existing.class);
    assertThat(((dev.spotkit.core.CreateOutcome.Existing<dev.spotkit.core.ActorRef>) outcome).ref().generation()
        .value()).isEqualTo(r.fence().objectGeneration());
    final AuthorityRecord ready = AuthorityRecord.decode(((ReadResult.Found) read(rowKey("stuck"))).value());
    assertThat(ready.allocation().state()).isEqualTo(AuthorityRecord.State.ACTIVE);
    assertThat(ready.objectGeneration().value()).isEqualTo(r.fence().objectGeneration());
    assertThat(runs("stuck")).isEqualTo(1);
    assertThat(node.actors().getOrCreate("stuck", "counted", EmptyRequest.INSTANCE).awaitOutcome())
        .isInstanceOf(dev.spotkit.core.CreateOutcome.Existing.class);
    assertThat(runs("stuck")).isEqualTo(1);
  }

  @Test
  @Spec("LOC-12")
  void aFenceNamingAnotherVersionTargetRunOrOwnerIsATypedFailureAndCreatesNothing() throws Exception {
    final Reserved r = reserve("bob");
    final ReservationFence f = r.fence();
    final NodeCapacityRecord before = capacity();
    final List<UnaryOperator<ReservationFence>> tampered = List.of(
        x -> new ReservationFence(x.reservationId(), "9" + x.expectedStoreVersion(), x.objectGeneration(),
            x.authorityOwnerGeneration(), x.targetNodeRid(), x.targetNodeGeneration(), x.targetOwnerId(),
            x.targetOwnerLeaseGeneration(), 1),
        x -> new ReservationFence(x.reservationId(), x.expectedStoreVersion(), x.objectGeneration(),
            x.authorityOwnerGeneration(), x.targetNodeRid(), x.targetNodeGeneration() + 1, x.targetOwnerId(),
            x.targetOwnerLeaseGeneration(), 1),
        x -> new ReservationFence(x.reservationId(), x.expectedStoreVersion(), x.objectGeneration(),
            x.authorityOwnerGeneration(), x.targetNodeRid(), x.targetNodeGeneration(), "owner-someone-else",
            x.targetOwnerLeaseGeneration(), 1),
        x -> new ReservationFence(x.reservationId(), x.expectedStoreVersion(), x.objectGeneration(),
            x.authorityOwnerGeneration(), Rids.of(fakeRid), x.targetNodeGeneration(), x.targetOwnerId(),
            x.targetOwnerLeaseGeneration(), 1),
        x -> new ReservationFence(x.reservationId(), x.expectedStoreVersion(), x.objectGeneration() + 1,
            x.authorityOwnerGeneration(), x.targetNodeRid(), x.targetNodeGeneration(), x.targetOwnerId(),
            x.targetOwnerLeaseGeneration(), 1));
    for (UnaryOperator<ReservationFence> tamper : tampered) {
      final OperationId operation = OperationId.random();
      final Reply reply = send(operation, fakeGeneration, "bob", tamper.apply(f), deadlineUnixMs());
      assertThat(reply.terminalResult()).isEqualTo(TerminalResult.NOT_CONNECTED);
      assertThat(reply.tail()).isEqualTo(ReplyTail.Empty.INSTANCE);
      assertThat(ReplyErrors.toException(reply, "creation of bob"))
          .isInstanceOf(SpotkitException.Unavailable.class).hasMessageContaining("LOC-12")
          .hasMessageContaining("nothing was created");
      assertThat(runs("bob")).isZero();
      final ReadResult.Found row = (ReadResult.Found) read(rowKey("bob"));
      assertThat(row.value()).isEqualTo(r.row());
      assertThat(row.version().value()).isEqualTo(f.expectedStoreVersion());
      assertThat(read(terminalKey(operation, fakeGeneration))).isInstanceOf(ReadResult.Missing.class);
      assertThat(capacity()).isEqualTo(before);
    }
    // a source run other than the connection's proven one (a previous run of the coordinator) creates nothing
    final Reply staleSource = send(OperationId.random(), fakeGeneration - 1, "bob", f, deadlineUnixMs());
    assertThat(ReplyErrors.toException(staleSource, "creation of bob")).isInstanceOf(SpotkitException.Unavailable.class)
        .hasMessageContaining("run " + (fakeGeneration - 1)).hasMessageContaining("nothing was created");
    assertThat(runs("bob")).isZero();
    // the untouched reservation still creates, once
    final Reply created = send(r.operation(), fakeGeneration, "bob", f, deadlineUnixMs());
    assertThat(created.tail()).isEqualTo(new ReplyTail.ActorCreated(CreateResult.CREATED,
        new WireActorRef("bob", f.objectGeneration())));
    assertThat(runs("bob")).isEqualTo(1);
  }

  /**
   * MEM-06: a Failed creation leaves a terminal record (and no Ready authority) kept until 5 minutes after the
   * original deadline, so the same operation within that window replays Failed without a second factory run. Once
   * the record is gone (its TTL; the store drops expired values, which this test stands in for by deleting it), the
   * object is created by a new reservation.
   */
  @Test
  @Spec("MEM-06")
  void aFailedCreationReplaysUntilItsTerminalExpiresThenANewReservationCreatesTheObject() throws Exception {
    FAIL_ONCE.add("gwen");
    final Reserved r = reserve("gwen");
    final long deadline = deadlineUnixMs();
    final Reply failed = send(r.operation(), fakeGeneration, "gwen", r.fence(), deadline);
    assertThat(failed.terminalResult()).isNotEqualTo(TerminalResult.OK);
    assertThat(read(rowKey("gwen"))).isInstanceOf(ReadResult.Missing.class); // no Ready authority
    final String key = terminalKey(r.operation(), fakeGeneration);
    final ReadResult.Found terminal = (ReadResult.Found) read(key);
    assertThat(CreationTerminalRecord.decode(terminal.value()).result())
        .isEqualTo(CreationTerminalRecord.Result.FAILED);
    final long keepUntil = deadline + Duration.ofMinutes(5).toMillis();
    assertThat(terminal.expiresAtMillis().orElseThrow()).isBetween(keepUntil - 2_000, keepUntil + 2_000);
    final Reply replayed = send(r.operation(), fakeGeneration, "gwen", r.fence(), deadline);
    assertThat(replayed.terminalResult()).isEqualTo(failed.terminalResult());
    assertThat(replayed.failureCode()).isEqualTo(failed.failureCode());
    assertThat(runs("gwen")).isEqualTo(1);

    store.write(dev.spotkit.store.WriteBatch.unconditional(new dev.spotkit.store.Mutation.Delete(key)))
        .toCompletableFuture().join(); // the TTL passed
    final Reserved again = reserve("gwen");
    final Reply created = send(r.operation(), fakeGeneration, "gwen", again.fence(), deadlineUnixMs());
    assertThat(created.tail()).isEqualTo(new ReplyTail.ActorCreated(CreateResult.CREATED,
        new WireActorRef("gwen", again.fence().objectGeneration())));
    assertThat(runs("gwen")).isEqualTo(2);
    assertThat(AuthorityRecord.decode(((ReadResult.Found) read(rowKey("gwen"))).value()).allocation().state())
        .isEqualTo(AuthorityRecord.State.ACTIVE);
  }

  @Test
  @Spec("MEM-05")
  void aDeclinedCreationIsRejectedAndLeavesNoRowAndNoCapacityInUse() throws Exception {
    final NodeCapacityRecord before = capacity();
    final Reserved r = reserve("no-carol");
    assertThat(capacity()).isNotEqualTo(before); // the reservation holds pending capacity
    final Reply reply = send(r.operation(), fakeGeneration, "no-carol", r.fence(), deadlineUnixMs());
    assertThat(reply.terminalResult()).isEqualTo(TerminalResult.OK);
    assertThat(reply.tail()).isEqualTo(new ReplyTail.ActorCreated(CreateResult.REJECTED, null));
    assertThat(new JsonCopier().decode(reply.payload())).isEqualTo(new Refused("full"));
    assertThat(read(rowKey("no-carol"))).isInstanceOf(ReadResult.Missing.class);
    assertThat(capacity()).isEqualTo(before);
    final ReadResult.Found terminal = (ReadResult.Found) read(terminalKey(r.operation(), fakeGeneration));
    assertThat(CreationTerminalRecord.decode(terminal.value()).result())
        .isEqualTo(CreationTerminalRecord.Result.REJECTED);
    // the same operation again replays Rejected; nothing is created by the replay
    final Reply again = send(r.operation(), fakeGeneration, "no-carol", r.fence(), deadlineUnixMs());
    assertThat(again.tail()).isEqualTo(reply.tail());
    assertThat(read(rowKey("no-carol"))).isInstanceOf(ReadResult.Missing.class);
    assertThat(capacity()).isEqualTo(before);
    assertThat(node.actors().find("no-carol")).isEmpty();
  }

  @Test
  void aRequestWithAFarFutureOrPastDeadlineGetsOneTypedReplyAndTheConnectionStays() throws Exception {
    for (long deadline : new long[] {Long.MAX_VALUE, Long.MAX_VALUE / 2, 1L}) {
      final byte[] frame = connection.request(c -> dev.spotkit.core.wire.ApplicationMessageCodec.encode(
          new dev.spotkit.core.wire.ApplicationMessage(c, dev.spotkit.core.wire.ApplicationMessage.TargetKind.ACTOR,
              "nobody", 0, null, deadline, 0, new dev.spotkit.relocation.wire.ApplicationPayload("java.lang.String",
              "application/json", "\"hi\"".getBytes(StandardCharsets.UTF_8)))), Deadline.after(WAIT))
          .get(15, TimeUnit.SECONDS);
      final Reply reply = ReplyCodec.decode(frame, OperationKind.ACTOR_REQUEST);
      if (deadline == 1L) { // a 1 ms budget: the owner's store lookup may outlast it on a busy machine
        assertThat(ReplyErrors.toException(reply, "request")).isInstanceOfAny(SpotkitException.NotFound.class,
            SpotkitException.DeadlineExceeded.class);
      } else {
        assertThat(ReplyErrors.toException(reply, "request")).isInstanceOf(SpotkitException.NotFound.class);
      }
      assertThat(connection.isOpen()).isTrue();
    }
  }
}
