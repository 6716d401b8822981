package dev.spotkit.examples.chat;

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
 * {@code guest-<session id>}. A room exists while it has members: it closes when the last one leaves or
 * disconnects, and the next {@code /join} of its name creates it again. An error line echoes at most
 * {@value #MAX_ECHO_CHARS} characters of what the client sent, control characters replaced ({@link #echo}).
 */
public final class ChatProtocol {

  /** Names of nicks and rooms. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,32}");

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
