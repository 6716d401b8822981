package dev.spotkit.examples.chat;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The checks of room lines and nicks ({@link ChatProtocol#lineProblem}, {@link ChatProtocol#nickProblem}). */
class ChatProtocolTest {

  private static final String RULE = "; room lines may not contain control characters (C0 except TAB, DEL, C1)"
      + " or lone surrogates";

  @Test
  void errorLinesGiveAReasonByTypeAndNeverTheToolkitsMessage() {
    final String internals = "node 1a2b3c4d5e6f7081 at 127.0.0.1:40123: io.netty.channel"
        + ".StacklessClosedChannelException";
    assertThat(ChatProtocol.reason(new dev.spotkit.core.SpotkitException.Unavailable(internals)))
        .isEqualTo("the room is not available right now; try again");
    assertThat(ChatProtocol.reason(new dev.spotkit.core.SpotkitException.NotFound(internals)))
        .isEqualTo("the room is gone");
    assertThat(ChatProtocol.reason(new dev.spotkit.core.SpotkitException.InternalFailure(internals)))
        .isEqualTo("internal error; try again");
    assertThat(ChatProtocol.reason(new dev.spotkit.core.SpotkitException.AlreadyExists(internals)))
        .isEqualTo("the room is being replaced; try again");
  }

  @Test
  void printableTextTabsAndSurrogatePairsAreSafe() {
    assertThat(ChatProtocol.lineProblem("")).isNull();
    assertThat(ChatProtocol.lineProblem("hello, world! [x] <b> ~ é ü 日本")).isNull();
    assertThat(ChatProtocol.lineProblem("a\tb")).isNull();
    assertThat(ChatProtocol.lineProblem("party \uD83C\uDF89 time")).isNull(); // one emoji: a valid pair
    assertThat(ChatProtocol.lineProblem("\u00A0non-breaking\u00FF")).isNull(); // first and last after C1
  }

  @Test
  void controlCharactersAreRefusedNamingCharacterAndPosition() {
    assertThat(ChatProtocol.lineProblem("red \u001b[31m")).isEqualTo("control character U+001B at char 5" + RULE);
    assertThat(ChatProtocol.lineProblem("\0")).isEqualTo("control character U+0000 at char 1" + RULE);
    assertThat(ChatProtocol.lineProblem("over\rwrite")).isEqualTo("control character U+000D at char 5" + RULE);
    assertThat(ChatProtocol.lineProblem("bell\u0007")).isEqualTo("control character U+0007 at char 5" + RULE);
    assertThat(ChatProtocol.lineProblem("x\u001f")).startsWith("control character U+001F at char 2");
    assertThat(ChatProtocol.lineProblem("del\u007f")).startsWith("control character U+007F at char 4");
    assertThat(ChatProtocol.lineProblem("\u0080")).startsWith("control character U+0080 at char 1");
    assertThat(ChatProtocol.lineProblem("csi\u009b2J")).startsWith("control character U+009B at char 4");
    assertThat(ChatProtocol.lineProblem("\u009f")).startsWith("control character U+009F at char 1");
  }

  @Test
  void loneSurrogatesAreRefused() {
    assertThat(ChatProtocol.lineProblem("a\uD800")).isEqualTo("lone surrogate U+D800 at char 2" + RULE);
    assertThat(ChatProtocol.lineProblem("\uDC00b")).isEqualTo("lone surrogate U+DC00 at char 1" + RULE);
    assertThat(ChatProtocol.lineProblem("\uD83C\uDF89\uDF89")).startsWith("lone surrogate U+DF89 at char 3");
    assertThat(ChatProtocol.lineProblem("\uD83Cx")).startsWith("lone surrogate U+D83C at char 1");
  }

  @Test
  void nicksAreOneToThirtyTwoNameCharsAndNeverTheGuestForm() {
    assertThat(ChatProtocol.nickProblem("ann")).isNull();
    assertThat(ChatProtocol.nickProblem("a".repeat(32))).isNull();
    assertThat(ChatProtocol.nickProblem("guest")).isNull();
    assertThat(ChatProtocol.nickProblem("guest-")).isNull();
    assertThat(ChatProtocol.nickProblem("guest-7x")).isNull();
    assertThat(ChatProtocol.nickProblem("my-guest-7")).isNull();
    assertThat(ChatProtocol.nickProblem("guest-7")).isEqualTo("bad nick 'guest-7': guest-<digits> is reserved"
        + " for clients without a nick; choose another");
    assertThat(ChatProtocol.nickProblem("GUEST-0012")).startsWith("bad nick 'GUEST-0012': guest-<digits> is");
    assertThat(ChatProtocol.nickProblem("")).isEqualTo("bad nick '': use 1 to 32 of A-Z a-z 0-9 _ -");
    assertThat(ChatProtocol.nickProblem("a".repeat(33))).startsWith("bad nick 'aaaa");
    assertThat(ChatProtocol.nickProblem("a b")).isEqualTo("bad nick 'a b': use 1 to 32 of A-Z a-z 0-9 _ -");
    assertThat(ChatProtocol.nickProblem("\u001b[2J")).isEqualTo("bad nick '?[2J': use 1 to 32 of A-Z a-z 0-9 _ -");
  }
}
