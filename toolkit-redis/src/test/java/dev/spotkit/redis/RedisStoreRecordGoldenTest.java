package dev.spotkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spotkit.core.Spec;
import dev.spotkit.core.location.AuthorityKind;
import dev.spotkit.core.location.AuthorityRecord;
import dev.spotkit.core.location.ChannelDescriptorRecord;
import dev.spotkit.core.location.GenerationCounter;
import dev.spotkit.core.location.Generations;
import dev.spotkit.core.location.LocationKeys;
import dev.spotkit.core.location.LocationRecords;
import dev.spotkit.core.location.LogicalKey;
import dev.spotkit.core.location.MeshNodeDescriptorRecord;
import dev.spotkit.core.location.ObjectKey;
import dev.spotkit.core.location.OwnerLeaseRecord;
import dev.spotkit.core.location.RecordDecodeException;
import dev.spotkit.store.Condition;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.ScanRequest;
import dev.spotkit.store.ScanResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreException;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code store-record-v1.json} against the Redis provider (spec 002 sections 3.4 and 12): for every vector the
 * Redis key Spotkit derives, the canonical JSON bytes (toolkit-core's records), the MessagePack member (the
 * Java codec and the Lua encoder the write script runs) and the full value the store really writes to Redis
 * are byte-identical; an unknown tag or recordVersion fails explicitly. The fixture is read from toolkit-core's
 * test-jar (one copy of the file).
 */
@Spec("LOC-27")
@Spec("LOC-28")
class RedisStoreRecordGoldenTest {
  @RegisterExtension
  static final RedisServerExtension REDIS = new RedisServerExtension();
  private static final HexFormat HEX = HexFormat.of();
  private static final byte[] RID = HEX.parseHex("01020304");
  private static JsonNode fixture;
  private static RedisLocationStore store;

  @BeforeAll
  static void load() throws IOException {
    try (InputStream in = RedisStoreRecordGoldenTest.class.getResourceAsStream(
        "/dev/spotkit/core/location/golden/store-record-v1.json")) {
      assertThat(in).as("store-record-v1.json in toolkit-core's test-jar").isNotNull();
      fixture = new ObjectMapper().readTree(in);
    }
    store = RedisLocationStore.connect(REDIS.uri(), fixture.get("prefixExample").asText());
  }

  @AfterAll
  static void close() {
    store.close();
  }

  @BeforeEach
  void empty() throws Exception {
    get(redis().flushall());
  }

  private static RedisAsyncCommands<byte[], byte[]> redis() {
    return store.session().commands();
  }

  private static <T> T get(final CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static byte[] utf8(final String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static LogicalKey keyFor(final JsonNode vector) {
    return switch (vector.get("record").asText()) {
      case "mesh-node-descriptor" -> LocationKeys.meshNode("main", RID);
      case "owner-lease" -> LocationKeys.ownerLease("owner-a");
      case "client-server-descriptor" -> LocationKeys.clientServer("chat-channel", RID);
      case "fanout-publisher-descriptor" -> LocationKeys.fanoutPublisher("chat-channel", RID);
      case "authority-actor" -> LocationKeys.authority(AuthorityKind.ACTOR, "user:42");
      case "authority-spot" -> LocationKeys.authority(AuthorityKind.SPOT, "room:1");
      case "creation-terminal" -> LocationKeys.creationTerminal(RID, 7, 42, 1);
      default -> throw new AssertionError("unknown record " + vector.get("record"));
    };
  }

  private static String originalKey(final JsonNode vector) {
    return vector.get("originalKey").asText().replace("\\u0000", "\0");
  }

  @Test
  void theStoreWritesEveryRecordAtTheRedisKeyOfItsVector() throws Exception {
    assertThat(fixture.get("keyDerivation")).hasSize(7);
    for (JsonNode vector : fixture.get("keyDerivation")) {
      final LogicalKey key = keyFor(vector);
      assertThat(HEX.formatHex(key.preimageBytes())).isEqualTo(vector.get("preimageHex").asText());
      assertThat(store.keys().record(key.preimage())).as(vector.get("record").asText())
          .isEqualTo(vector.get("redisKey").asText());
      get(store.write(WriteBatch.unconditional(Mutation.Put.of(key.preimage(), StoreBytes.utf8("x")))));
      assertThat(get(redis().exists(utf8(vector.get("redisKey").asText())))).as("written at the vector's key")
          .isEqualTo(1L);
    }
  }

  @Test
  void relocationBlobKeyMatchesTheVector() throws Exception {
    final JsonNode blob = fixture.get("relocationBlob");
    try (RedisRelocationStore relocation = RedisRelocationStore.connect(REDIS.uri(), "app1")) {
      assertThat(relocation.keys().relocationBlob(blob.get("reference").asText()))
          .isEqualTo(blob.get("redisKey").asText());
      get(relocation.put(new dev.spotkit.store.RelocationReference(blob.get("reference").asText()),
          StoreBytes.of(HEX.parseHex(blob.get("rawBytesHex").asText())), Duration.ofHours(24)));
      assertThat(HEX.formatHex(get(redis().get(utf8(blob.get("redisKey").asText())))))
          .as("a plain string of the raw bytes").isEqualTo(blob.get("rawBytesHex").asText());
    }
  }

  private static <T> void jsonRoundTrip(final JsonNode vector, final Function<StoreBytes, T> decode,
      final Function<T, StoreBytes> encode) throws Exception {
    final String hex = vector.get("jsonBytesHex").asText();
    final StoreBytes again = encode.apply(decode.apply(StoreBytes.of(HEX.parseHex(hex))));
    assertThat(again.toHex()).as(vector.get("name").asText()).isEqualTo(hex);
    assertThat(new ObjectMapper().readTree(again.toByteArray())).isEqualTo(vector.get("decoded"));
  }

  @Test
  void canonicalJsonOfEveryValueVectorIsByteIdentical() throws Exception {
    int checked = 0;
    for (JsonNode v : fixture.get("valueVectors").get("genericOpaqueRecord")) {
      switch (v.get("name").asText()) {
        case "meshNodeDescriptor-normal" -> jsonRoundTrip(v, MeshNodeDescriptorRecord::decode,
            MeshNodeDescriptorRecord::encode);
        case "clientServerDescriptor-normal" -> jsonRoundTrip(v,
            b -> ChannelDescriptorRecord.decode(ChannelDescriptorRecord.Kind.CLIENT_SERVER, b),
            ChannelDescriptorRecord::encode);
        case "fanoutPublisherDescriptor-normal" -> jsonRoundTrip(v,
            b -> ChannelDescriptorRecord.decode(ChannelDescriptorRecord.Kind.FANOUT_PUBLISHER, b),
            ChannelDescriptorRecord::encode);
        case "ownerLease-expired" -> jsonRoundTrip(v, OwnerLeaseRecord::decode, OwnerLeaseRecord::encode);
        case "authority-actor-normal", "authority-spot-normal" -> jsonRoundTrip(v, AuthorityRecord::decode,
            AuthorityRecord::encode);
        case "ownerLease-tombstone" -> assertThat(v.get("jsonBytesHex").asText()).isEmpty();
        default -> throw new AssertionError("a vector this test does not know: " + v.get("name"));
      }
      checked++;
    }
    assertThat(checked).isEqualTo(7);
  }

  @Test
  void memberOfEveryVectorIsByteIdenticalFromJavaAndFromTheWriteScriptsLuaEncoder() throws Exception {
    for (JsonNode v : fixture.get("valueVectors").get("genericOpaqueRecord")) {
      final String name = v.get("name").asText();
      final String full = v.get("fullValueHex").asText();
      assertThat(full).isEqualTo("01" + v.get("cmsgpackMemberHex").asText());
      final OpaqueRecord record = new OpaqueRecord(utf8(originalKey(v)), HEX.parseHex(v.get("jsonBytesHex").asText()),
          v.get("version").asText(), Long.parseLong(v.get("expiresAtMs").asText()), v.get("tombstone").asBoolean());
      assertThat(HEX.formatHex(record.encode())).as(name + " from Java").isEqualTo(full);
      final OpaqueRecord decoded = OpaqueRecord.decode(HEX.parseHex(full));
      assertThat(decoded.key()).isEqualTo(originalKey(v));
      assertThat(HEX.formatHex(decoded.value())).isEqualTo(v.get("jsonBytesHex").asText());
      assertThat(decoded.version()).isEqualTo(v.get("version").asText());
      assertThat(decoded.expiresAtMillis()).isEqualTo(Long.parseLong(v.get("expiresAtMs").asText()));
      assertThat(decoded.tombstone()).isEqualTo(v.get("tombstone").asBoolean());
      final List<Object> lua = get(redis().<List<Object>>eval(RedisLocationStore.ENCODE_MEMBER.source(),
          ScriptOutputType.MULTI, new byte[0][], utf8("0"), utf8(originalKey(v)),
          HEX.parseHex(v.get("jsonBytesHex").asText()), utf8(v.get("version").asText()),
          utf8(v.get("expiresAtMs").asText()), utf8(v.get("tombstone").asBoolean() ? "1" : "0")));
      assertThat(HEX.formatHex((byte[]) lua.get(0))).as(name + " from the Lua encoder").isEqualTo(full);
    }
  }

  private static JsonNode vector(final String name) {
    for (JsonNode v : fixture.get("valueVectors").get("genericOpaqueRecord")) {
      if (v.get("name").asText().equals(name)) {
        return v;
      }
    }
    throw new AssertionError("no vector " + name);
  }

  private static byte[] head(final String logicalKey) throws Exception {
    final List<byte[]> members = get(redis().zrange(utf8(store.keys().record(logicalKey)), -1, -1));
    assertThat(members).hasSize(1);
    return members.get(0);
  }

  @Test
  void theFullValueTheStoreWritesIsByteIdenticalAndReadsBack() throws Exception {
    for (String name : List.of("meshNodeDescriptor-normal", "clientServerDescriptor-normal",
        "fanoutPublisherDescriptor-normal", "authority-actor-normal", "authority-spot-normal")) {
      final JsonNode v = vector(name);
      final long version = Long.parseLong(v.get("version").asText());
      get(redis().set(utf8(store.keys().internal("seq")), utf8(Long.toString(version - 1))));
      final byte[] json = HEX.parseHex(v.get("jsonBytesHex").asText());
      final WriteResult.Applied applied = (WriteResult.Applied) get(store.write(WriteBatch.of(
          List.of(new Condition.ExpectAbsent(originalKey(v))), List.of(Mutation.Put.of(originalKey(v),
              StoreBytes.of(json))))));
      assertThat(applied.version(originalKey(v)).value()).isEqualTo(v.get("version").asText());
      assertThat(HEX.formatHex(head(originalKey(v)))).as(name + " as stored in Redis")
          .isEqualTo(v.get("fullValueHex").asText());
      final ReadResult.Found found = (ReadResult.Found) get(store.read(originalKey(v)));
      assertThat(found.value().toByteArray()).isEqualTo(json);
      assertThat(found.version().value()).isEqualTo(v.get("version").asText());
    }
  }

  @Test
  void theTombstoneTheStoreWritesIsTheTombstoneVectorAndReadsAsMissing() throws Exception {
    final JsonNode v = vector("ownerLease-tombstone");
    final String key = originalKey(v);
    get(redis().set(utf8(store.keys().internal("seq")), utf8("41")));
    get(store.write(WriteBatch.unconditional(Mutation.Put.of(key, StoreBytes.utf8("lease")),
        Mutation.Put.of("scan-holder", StoreBytes.utf8("h")))));
    // an open scan keeps the tombstone in the log (without one the deleted key is removed entirely)
    final ScanResult.Page page = (ScanResult.Page) get(store.scan(ScanRequest.first("", 1)));
    assertThat(page.next()).isPresent();
    get(store.write(WriteBatch.unconditional(new Mutation.Delete(key))));
    assertThat(HEX.formatHex(head(key))).isEqualTo(v.get("fullValueHex").asText());
    assertThat(get(store.read(key))).isInstanceOf(ReadResult.Missing.class);
    assertThat(get(store.write(WriteBatch.of(List.of(new Condition.ExpectAbsent(key)), List.of()))))
        .isInstanceOf(WriteResult.Applied.class);
  }

  @Test
  void theExpiredVectorWrittenByAnotherLanguageReadsAsMissing() throws Exception {
    final JsonNode v = vector("ownerLease-expired");
    final String key = originalKey(v);
    get(redis().zadd(utf8(store.keys().record(key)), 44, HEX.parseHex(v.get("fullValueHex").asText())));
    assertThat(get(store.read(key))).as("expiresAtMs 1700000000000 is in the past of server TIME")
        .isInstanceOf(ReadResult.Missing.class);
    assertThat(get(store.write(WriteBatch.of(List.of(new Condition.ExpectAbsent(key)),
        List.of(Mutation.Put.of(key, StoreBytes.utf8("new"))))))).isInstanceOf(WriteResult.Applied.class);
  }

  @Test
  void aRecordWrittenByAnotherLanguageIsReadWithItsVersion() throws Exception {
    final JsonNode v = vector("authority-actor-normal");
    get(redis().zadd(utf8(store.keys().record(originalKey(v))), 9,
        HEX.parseHex(v.get("fullValueHex").asText())));
    final LocationRecords.Stored stored = LocationRecords.read(store, ObjectKey.actor("user:42")).orElseThrow();
    assertThat(stored.version().value()).isEqualTo("9");
    assertThat(stored.authority().encode().toHex()).isEqualTo(v.get("jsonBytesHex").asText());
  }

  @Test
  void counterVectorsIssueThroughTheRedisStore() throws Exception {
    final JsonNode counters = fixture.get("counterVectors").get("vectors");
    final List<GenerationCounter> order = List.of(GenerationCounter.OWNER_LEASE, GenerationCounter.OBJECT,
        GenerationCounter.AUTHORITY_OWNER);
    for (int i = 0; i < 3; i++) {
      final JsonNode vector = counters.get(i);
      final GenerationCounter counter = order.get(i);
      assertThat(counter.key().preimage()).isEqualTo(vector.get("logicalKey").asText());
      get(store.write(WriteBatch.unconditional(Mutation.Put.of(counter.key().preimage(),
          StoreBytes.utf8(vector.get("issuedValue").asText())))));
      final Generations.Issued issued = Generations.issueAlone(store, counter, Duration.ofSeconds(5), 1);
      assertThat(Long.toString(issued.value())).isEqualTo(vector.get("issuedValue").asText());
      final OpaqueRecord stored = OpaqueRecord.decode(head(counter.key().preimage()));
      assertThat(new String(stored.value(), StandardCharsets.UTF_8)).as("a bare decimal")
          .isEqualTo(vector.get("storedNextValue").asText());
    }
  }

  @Test
  void anUnknownTagFailsExplicitlyAndChangesNothing() throws Exception {
    final String key = originalKey(vector("authority-actor-normal"));
    final byte[] other = HEX.parseHex("02" + vector("authority-actor-normal").get("cmsgpackMemberHex").asText());
    assertThatThrownBy(() -> OpaqueRecord.decode(other)).isInstanceOf(OpaqueRecordException.class)
        .hasMessage("unknown opaque record tag 0x02 (this Spotkit reads tag 0x01 only)");
    get(redis().zadd(utf8(store.keys().record(key)), 9, other));
    assertThatThrownBy(() -> get(store.read(key))).hasCauseInstanceOf(StoreException.Unavailable.class)
        .hasRootCauseInstanceOf(OpaqueRecordException.class).hasStackTraceContaining("unknown opaque record tag 0x02");
    get(store.write(WriteBatch.unconditional(Mutation.Put.of("bystander", StoreBytes.utf8("before")))));
    assertThatThrownBy(() -> get(store.write(WriteBatch.unconditional(
        Mutation.Put.of("bystander", StoreBytes.utf8("after")), Mutation.Put.of(key, StoreBytes.utf8("x"))))))
        .hasCauseInstanceOf(StoreException.Unavailable.class)
        .hasStackTraceContaining("SPOTKIT unknown opaque record tag 2");
    assertThat(((ReadResult.Found) get(store.read("bystander"))).value().asUtf8()).isEqualTo("before");
  }

  @Test
  void anUnknownRecordVersionFailsExplicitly() throws Exception {
    final String json = new String(HEX.parseHex(vector("authority-actor-normal").get("jsonBytesHex").asText()),
        StandardCharsets.UTF_8).replace("{\"recordVersion\":1,", "{\"recordVersion\":2,");
    final ObjectKey object = ObjectKey.actor("user:42");
    get(store.write(WriteBatch.unconditional(Mutation.Put.of(object.logicalKey().preimage(),
        StoreBytes.utf8(json)))));
    assertThatThrownBy(() -> LocationRecords.read(store, object))
        .isInstanceOf(RecordDecodeException.UnknownVersion.class);
  }
}
