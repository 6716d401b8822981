package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.store.StoreBytes;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** {@link DrainRequestRecord}: canonical JSON both ways, bounded lists, refusals of malformed records. */
class DrainRequestRecordTest {
  private static final String ID = "0123456789abcdef0123456789abcdef";

  @Test
  void aRequestAndItsAnswerReadBackAsWritten() {
    final DrainRequestRecord asked = new DrainRequestRecord(ID, DrainRequestRecord.State.REQUESTED, "ops@h", 17,
        30_000, List.of("00000000000000aa"), null, null);
    assertThat(asked.encode().asUtf8()).isEqualTo("{\"recordVersion\":1,\"requestId\":\"" + ID + "\",\"state\":"
        + "\"requested\",\"requestedBy\":\"ops@h\",\"requestedAtEpochMs\":\"17\",\"deadlineMs\":\"30000\","
        + "\"targets\":[{\"routingIdHex\":\"00000000000000aa\"}],\"result\":null,\"error\":null}");
    assertThat(DrainRequestRecord.decode(asked.encode())).isEqualTo(asked);
    final DrainRequestRecord done = asked.with(DrainRequestRecord.State.DONE, new DrainRequestRecord.Result(
        "blocked", 1, 1, 2, 1, List.of("a"), List.of(new DrainRequestRecord.Room("r", 2)),
        List.of(new DrainRequestRecord.Kept("INSTANCE_SPOT", "dir", "NOT_SUPPORTED", true))), null);
    assertThat(DrainRequestRecord.decode(done.encode())).isEqualTo(done);
    final DrainRequestRecord failed = asked.with(DrainRequestRecord.State.FAILED, null, "no target");
    assertThat(DrainRequestRecord.decode(failed.encode())).isEqualTo(failed);
    assertThat(failed.state().finished()).isTrue();
    assertThat(asked.state().finished()).isFalse();
  }

  @Test
  void resultListsAreCutAtFiveHundredWhileTheCountsStayExact() {
    final List<String> ids = IntStream.range(0, 2_000).mapToObj(i -> "actor-" + i).toList();
    final DrainRequestRecord.Result r = new DrainRequestRecord.Result("relocated", 2_000, 0, 0, 0, ids, List.of(),
        List.of());
    assertThat(r.actors()).hasSize(DrainRequestRecord.MAX_LISTED);
    assertThat(r.actorsMoved()).isEqualTo(2_000);
  }

  @Test
  void malformedRecordsAreRefused() {
    assertThatThrownBy(() -> new DrainRequestRecord("xyz", DrainRequestRecord.State.REQUESTED, "a", 0, 1, List.of(),
        null, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new DrainRequestRecord(ID, DrainRequestRecord.State.REQUESTED, "a", 0, 0, List.of(),
        null, null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> DrainRequestRecord.decode(StoreBytes.utf8("{\"recordVersion\":1,\"requestId\":\"zz\","
        + "\"state\":\"requested\",\"requestedBy\":\"a\",\"requestedAtEpochMs\":\"0\",\"deadlineMs\":\"1\","
        + "\"targets\":[],\"result\":null,\"error\":null}"))).isInstanceOf(RecordDecodeException.Malformed.class);
    assertThatThrownBy(() -> DrainRequestRecord.decode(StoreBytes.utf8("{\"recordVersion\":2}")))
        .isInstanceOf(RecordDecodeException.UnknownVersion.class);
  }
}
