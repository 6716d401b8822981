package dev.spotkit.relocation.follow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.follow.MessageFollowTable.Followed;
import dev.spotkit.relocation.follow.MessageFollowTable.Forward;
import dev.spotkit.relocation.follow.MessageFollowTable.Reject;
import dev.spotkit.relocation.follow.MessageFollowTable.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageFollowTableTest {
  private static final Message REQUEST = Message.request(77, 5, 123_456, new byte[] {1, 2});

  private static MessageFollowTable table(final String self) {
    return new MessageFollowTable(self, MessageFollowTable.DEFAULT_DURATION_MS, MessageFollowTable.DEFAULT_MAX_HOPS,
        2_000);
  }

  @Test
  void forwardKeepsRequestIdentityReplyRouteAndOriginalDeadlineAndSetsItsOwnWait() {
    final MessageFollowTable a = table("node-a");
    assertThat(a.install(new Route("actor-1", 9, 4, "node-b", 1_000))).isTrue();
    final var d = a.decide(Followed.fresh("actor-1", 9, REQUEST), 1_500);
    assertThat(d).isInstanceOfSatisfying(Forward.class, f -> {
      assertThat(f.nextNode()).isEqualTo("node-b");
      assertThat(f.followed().message()).isEqualTo(REQUEST);
      assertThat(f.followed().message().operationId()).isEqualTo(77);
      assertThat(f.followed().message().replyRouteId()).isEqualTo(5);
      assertThat(f.followed().message().deadlineMs()).isEqualTo(123_456);
      assertThat(f.followed().hops()).isEqualTo(1);
      assertThat(f.followed().visited()).containsExactly("node-a");
      assertThat(f.waitUntilMs()).isEqualTo(3_500);
    });
  }

  @Test
  void theRouteEndsAfterThirtySeconds() {
    final MessageFollowTable a = table("node-a");
    a.install(new Route("actor-1", 9, 4, "node-b", 1_000));
    assertThat(a.decide(Followed.fresh("actor-1", 9, REQUEST), 30_999)).isInstanceOf(Forward.class);
    assertThat(a.decide(Followed.fresh("actor-1", 9, REQUEST), 31_000)).isInstanceOfSatisfying(Reject.class,
        r -> assertThat(r.errorKind()).isEqualTo("Unavailable"));
    assertThat(a.size()).isZero();
  }

  @Test
  void atMostEightHops() {
    Followed f = Followed.fresh("actor-1", 9, REQUEST);
    for (int hop = 0; hop < 9; hop++) {
      final MessageFollowTable node = table("node-" + hop);
      node.install(new Route("actor-1", 9, hop + 1, "node-" + (hop + 1), 0));
      final var d = node.decide(f, 10);
      if (hop < 8) {
        f = ((Forward) d).followed();
      } else {
        assertThat(d).isInstanceOfSatisfying(Reject.class, r -> {
          assertThat(r.errorKind()).isEqualTo("Unavailable");
          assertThat(r.reason()).isEqualTo("Message Follow hop limit 8 reached");
        });
      }
    }
    assertThat(f.hops()).isEqualTo(8);
  }

  @Test
  void aCycleOrANonIncreasingGenerationEndsUnavailable() {
    final MessageFollowTable a = table("node-a");
    final MessageFollowTable b = table("node-b");
    a.install(new Route("actor-1", 9, 4, "node-b", 0));
    b.install(new Route("actor-1", 9, 5, "node-a", 0));
    final Followed atB = ((Forward) a.decide(Followed.fresh("actor-1", 9, REQUEST), 10)).followed();
    assertThat(b.decide(atB, 10)).isInstanceOfSatisfying(Reject.class,
        r -> assertThat(r.errorKind()).isEqualTo("Unavailable"));
    final MessageFollowTable c = table("node-c");
    c.install(new Route("actor-1", 9, 4, "node-d", 0)); // Same owner generation as the hop before: no progress.
    assertThat(c.decide(atB, 10)).isInstanceOfSatisfying(Reject.class,
        r -> assertThat(r.reason()).contains("cycle"));
  }

  @Test
  void anObjectGenerationMismatchIsInvalidOperationAndGenerationsMustIncreaseOnInstall() {
    final MessageFollowTable a = table("node-a");
    a.install(new Route("actor-1", 9, 4, "node-b", 0));
    assertThat(a.decide(Followed.fresh("actor-1", 8, REQUEST), 10)).isInstanceOfSatisfying(Reject.class,
        r -> assertThat(r.errorKind()).isEqualTo("InvalidOperation"));
    assertThat(a.install(new Route("actor-1", 9, 4, "node-c", 5))).isFalse();
    assertThat(a.install(new Route("actor-1", 9, 3, "node-c", 5))).isFalse();
    assertThat(a.install(new Route("actor-1", 9, 6, "node-c", 5))).isTrue();
    assertThat(a.decide(Followed.fresh("other", 1, REQUEST), 10))
        .isInstanceOf(MessageFollowTable.NoRoute.class);
  }

  @Test
  void zeroDurationDisablesFollowAndBadSettingsAreRefused() {
    final MessageFollowTable off = new MessageFollowTable("node-a", 0, 8, 1);
    assertThat(off.install(new Route("actor-1", 9, 4, "node-b", 0))).isFalse();
    assertThatThrownBy(() -> new MessageFollowTable("node-a", 1, 0, 1))
        .hasMessage("durationMs=1 (>= 0), maxHops=0 (>= 1), relayWindowMs=1 (>= 1)");
    assertThat(List.of(MessageFollowTable.DEFAULT_DURATION_MS, (long) MessageFollowTable.DEFAULT_MAX_HOPS))
        .containsExactly(30_000L, 8L);
  }
}
