package dev.spotkit.core.session;

import java.util.Objects;

/**
 * Pipeline message a decoder emits in place of a frame it rejected, so that the frames before and after
 * it keep their order and decoding goes on within the same read (a thrown exception would leave the
 * bytes after the bad frame waiting for the next read). The session's dispatch handler answers it with
 * the codec's error reply; it never reaches {@link SessionInbound#onFrame(Object)}.
 *
 * <p>Not reference counted: a decoder releases or skips the bad bytes before emitting this.
 *
 * @param error what was wrong, typed, with the value and the limit.
 */
public record BadFrame(FrameDecodeException error) {

  /**
   * Checks the error is present.
   *
   * @param error what was wrong; never null.
   */
  public BadFrame {
    Objects.requireNonNull(error, "error");
  }
}
