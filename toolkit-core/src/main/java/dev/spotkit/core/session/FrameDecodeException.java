package dev.spotkit.core.session;

import io.netty.handler.codec.DecoderException;

/**
 * The peer sent bytes a {@link FrameCodec} cannot turn into a frame. Always the peer's fault, never the
 * server's: the session gets an error reply (see {@link FrameCodec#errorReply(FrameDecodeException)})
 * and the server keeps serving.
 *
 * <p>Codecs report it as a {@link BadFrame} message in the pipeline, positioned between the frames it
 * separates, or by throwing it from a decoder. Subclasses carry the offending value and the limit in
 * fields and in the message. No stack trace is captured: the origin is the peer's bytes, not this code.
 */
public abstract class FrameDecodeException extends DecoderException {

  private static final long serialVersionUID = 1L;

  /**
   * Creates the error.
   *
   * @param message what was wrong, with the value and the limit.
   */
  protected FrameDecodeException(final String message) {
    super(message);
  }

  /**
   * Does not capture a stack trace: a peer's bad bytes are expected input, and the trace would only name
   * the decoder.
   *
   * @return this exception.
   */
  @Override
  public final synchronized Throwable fillInStackTrace() {
    return this;
  }
}
