package dev.spotkit.examples.chat;

import dev.spotkit.core.SpotkitException;

import java.util.regex.Pattern;

/**
 * The chat line protocol, shared by the server and the bots. One UTF-8 line per message, LF or CRLF.
 *
 * <pre>
 *   client sends          server answers (only to that client unless noted)
 *   /nick NAME            ok nick NAME
 *   /join ROOM            ok join ROOM            sent once the room has accepted you: from then on you
 *                                                 receive every line said in ROOM (leaves your old room)
 *   /leave                ok leave ROOM
 *   /rooms                rooms: ROOM(3) ROOM(1)  rooms with members, or "rooms: none"
 *   /who                  who ROOM: NICK NICK     members of your room
 *   /where                where ROOM node=HEX     the node your room (and you, its member) run on, or
 *                                                 "where: in no room"
 *   any other text        [ROOM] NICK: TEXT       to every member of your room, you included, in the
 *                                                 order the room received the lines
 *   anything wrong        error: WHAT             e.g. "error: unknown command /foo; try /nick ...",
 *                                                 "error: line of 1048576 bytes exceeds maxLineBytes 8192"
 * </pre>
 *
 * NAME and ROOM are 1 to 32 characters of {@code A-Z a-z 0-9 _ -}. A client without a nick is
 * {@code guest-<session id>}; that form ({@code guest-} and digits, in any letter case) is reserved, so
 * {@code /nick guest-7} is refused with an error line ({@link #nickProblem}) and nobody can pose as a guest. A
 * room exists while it has members: it closes when the last one leaves or disconnects, and the next
 * {@code /join} of its name creates it again.
 *
 * <p><b>Safe room lines.</b> A room line reaches every member's terminal, so a line that contains a control
 * character (C0 {@code U+0000..U+001F} except TAB, DEL {@code U+007F}, C1 {@code U+0080..U+009F}: ESC sequences,
 * NUL, a lone CR, BEL...) or a lone surrogate is refused: the sender gets
 * {@code error: line not sent: it contains ...} naming the character and its position, and nobody else gets
 * anything ({@link #lineProblem}). Refused, not escaped, so what a member reads is exactly what was said. An
 * error line echoes at most {@value #MAX_ECHO_CHARS} characters of what the client sent, control characters
 * replaced ({@link #echo}).
 */
public final class ChatProtocol {

  /** Names of nicks and rooms. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,32}");

  /** The default nick of a client that never set one, reserved: {@code guest-<digits>}, any letter case. */
  public static final Pattern GUEST = Pattern.compile("(?i)guest-[0-9]+");

  /** Reply prefix to {@code /nick}. */
  public static final String OK_NICK = "ok nick ";
  /** Reply prefix to {@code /join}: the client is a member of the room. */
  public static final String OK_JOIN = "ok join ";
  /** Reply prefix to {@code /leave}. */
  public static final String OK_LEAVE = "ok leave ";
  /** Reply prefix to {@code /where} in a room: {@code where ROOM node=HEX}. */
  public static final String WHERE = "where ";
  /** Reply prefix of every error line. */
  public static final String ERROR = "error: ";
  /** Prefix of the error line of a refused room line; the reason ({@link #lineProblem}) follows. */
  public static final String LINE_REFUSED = ERROR + "line not sent: it contains ";
  /** The commands, for the help text of an unknown command. */
  public static final String HELP = "/nick NAME, /join ROOM, /leave, /rooms, /who, /where";
  /** At most this many characters of client input are echoed back in an error line. */
  public static final int MAX_ECHO_CHARS = 40;

  private ChatProtocol() {
  }

  /**
   * A line said in a room, as every member receives it.
   *
   * @param room the room.
   * @param nick who said it.
   * @param text what was said.
   * @return {@code [room] nick: text}.
   */
  public static String roomLine(final String room, final String nick, final String text) {
    return "[" + room + "] " + nick + ": " + text;
  }

  /**
   * What a client is told about a failed operation: a short reason by the error's type, never the toolkit's own
   * message (that names nodes, addresses and classes; the server logs it).
   *
   * @param error the typed failure.
   * @return e.g. {@code "the room is not available right now; try again"}.
   */
  public static String reason(final SpotkitException error) {
    return switch (error) {
      case SpotkitException.NotFound e -> "the room is gone";
      case SpotkitException.Unavailable e -> "the room is not available right now; try again";
      case SpotkitException.DeadlineExceeded e -> "the server did not answer in time; try again";
      case SpotkitException.CapacityExceeded e -> "the server is full; try again later";
      case SpotkitException.ShuttingDown e -> "the server is shutting down";
      case SpotkitException.StaleGeneration e -> "the room was just replaced; try again";
      case SpotkitException.Rejected e -> "the room is closing; try again";
      case SpotkitException.AlreadyExists e -> "the room is being replaced; try again";
      default -> "internal error; try again";
    };
  }

  /**
   * Client input made safe to echo in an error line: control characters (NUL, ESC, CR, C1 controls...) and
   * surrogate chars (so no half of a pair is left at the cut) become {@code '?'}, and input over
   * {@value #MAX_ECHO_CHARS} characters is cut there and ends with {@code "..."}, so a hostile name can neither
   * inject terminal escapes nor make the reply kilobytes long.
   *
   * @param input what the client sent.
   * @return at most {@value #MAX_ECHO_CHARS} characters plus {@code "..."}.
   */
  public static String echo(final String input) {
    final int length = Math.min(input.length(), MAX_ECHO_CHARS);
    final StringBuilder out = new StringBuilder(length + 3);
    for (int i = 0; i < length; i++) {
      final char c = input.charAt(i);
      out.append(Character.isISOControl(c) || Character.isSurrogate(c) ? '?' : c);
    }
    return input.length() > MAX_ECHO_CHARS ? out.append("...").toString() : out.toString();
  }

  /**
   * Checks a line a client wants to say in its room. Refused are: C0 controls {@code U+0000..U+001F} except TAB
   * {@code U+0009} (so NUL, BEL, BS, a lone CR, ESC and the start of every ESC sequence), DEL {@code U+007F}, C1
   * controls {@code U+0080..U+009F} (CSI {@code U+009B} included), and a surrogate char that is not half of a
   * valid pair. Everything else (TAB, printable text, emoji as surrogate pairs) is fine.
   *
   * @param text the line as the client sent it, without its LF or CRLF.
   * @return null when the line is safe to relay; otherwise the reason, e.g.
   *     {@code "control character U+001B at char 6; room lines may not contain control characters (C0 except"
   *     + " TAB, DEL, C1) or lone surrogates"}, positions counted from 1 in UTF-16 chars.
   */
  public static String lineProblem(final String text) {
    for (int i = 0; i < text.length(); i++) {
      final char c = text.charAt(i);
      final String what;
      if (c != '\t' && Character.isISOControl(c)) { // exactly U+0000..U+001F, U+007F..U+009F
        what = "control character";
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++; // a valid pair: one code point
        continue;
      } else if (Character.isSurrogate(c)) {
        what = "lone surrogate";
      } else {
        continue;
      }
      return String.format("%s U+%04X at char %d; room lines may not contain control characters (C0 except TAB,"
          + " DEL, C1) or lone surrogates", what, (int) c, i + 1);
    }
    return null;
  }

  /**
   * Checks a nick a client asked for with {@code /nick}: 1 to 32 of {@code A-Z a-z 0-9 _ -}, and not the reserved
   * guest form {@code guest-<digits>} (in any letter case), which only clients without a nick carry.
   *
   * @param name the argument of {@code /nick}.
   * @return null when the nick may be taken; otherwise the text of the error line after {@link #ERROR}, with the
   *     name made safe by {@link #echo}.
   */
  public static String nickProblem(final String name) {
    if (!NAME.matcher(name).matches()) {
      return "bad nick '" + echo(name) + "': use 1 to 32 of A-Z a-z 0-9 _ -";
    }
    if (GUEST.matcher(name).matches()) {
      return "bad nick '" + name + "': guest-<digits> is reserved for clients without a nick; choose another";
    }
    return null;
  }

  /**
   * The text part of a room line.
   *
   * @param line a line received from the server.
   * @return the text after {@code "] nick: "}, or null when {@code line} is not a room line.
   */
  public static String roomText(final String line) {
    if (!line.startsWith("[")) {
      return null;
    }
    final int close = line.indexOf("] ");
    final int colon = close < 0 ? -1 : line.indexOf(": ", close + 2);
    return colon < 0 ? null : line.substring(colon + 2);
  }
}
