package dev.spotkit.core.internal.runtime;

import dev.spotkit.core.ErrorKind;
import dev.spotkit.core.SpotkitException;
import dev.spotkit.core.internal.mesh.RouteMesh;
import dev.spotkit.relocation.wire.ApplicationPayload;
import dev.spotkit.core.wire.FailureCode;
import dev.spotkit.core.wire.Reply;
import dev.spotkit.core.wire.ReplyTail;
import dev.spotkit.core.wire.TerminalResult;
import java.nio.charset.StandardCharsets;

/**
 * Typed errors across the mesh: a failed request is answered by a command 20 reply whose TerminalResult is the
 * nearest wire result and whose payload (content type {@value RouteMesh#ERROR_CONTENT}) names the
 * {@link ErrorKind} as packet name and carries the message, so the caller gets the same typed error the owner
 * raised. Pure functions.
 */
public final class ReplyErrors {
  /** Longest error text sent, in UTF-8 bytes. */
  private static final int MAX_TEXT_BYTES = 4096;

  private ReplyErrors() {
  }

  public static Reply toReply(final long correlation, final SpotkitException error) {
    byte[] text = String.valueOf(error.getMessage()).getBytes(StandardCharsets.UTF_8);
    if (text.length > MAX_TEXT_BYTES) {
      text = java.util.Arrays.copyOf(text, MAX_TEXT_BYTES);
    }
    return new Reply(correlation, result(error.kind()), FailureCode.NONE, ReplyTail.Empty.INSTANCE,
        new ApplicationPayload(error.kind().name(), RouteMesh.ERROR_CONTENT, text));
  }

  public static SpotkitException toException(final Reply reply, final String what) {
    final ApplicationPayload payload = reply.payload();
    ErrorKind kind = null;
    String text = "the owner answered " + reply.terminalResult();
    if (payload != null && RouteMesh.ERROR_CONTENT.equals(payload.contentType())) {
      text = new String(payload.payload(), StandardCharsets.UTF_8);
      try {
        kind = ErrorKind.valueOf(payload.packetName());
      } catch (IllegalArgumentException e) {
        kind = null;
      }
    }
    if (kind == null) {
      kind = kindOf(reply.terminalResult());
    }
    return of(kind, what + ": " + text);
  }

  /** The typed error of a kind, by its name when known (else InternalFailure). */
  public static SpotkitException of(final String kindName, final String message) {
    ErrorKind kind;
    try {
      kind = kindName == null ? ErrorKind.INTERNAL_FAILURE : ErrorKind.valueOf(kindName);
    } catch (IllegalArgumentException e) {
      kind = ErrorKind.INTERNAL_FAILURE;
    }
    return of(kind, message);
  }

  public static SpotkitException of(final ErrorKind kind, final String message) {
    return switch (kind) {
      case NOT_FOUND -> new SpotkitException.NotFound(message);
      case UNAVAILABLE -> new SpotkitException.Unavailable(message);
      case CAPACITY_EXCEEDED -> new SpotkitException.CapacityExceeded(message);
      case DEADLINE_EXCEEDED -> new SpotkitException.DeadlineExceeded(message);
      case TYPE_MISMATCH -> new SpotkitException.TypeMismatch(message);
      case ALREADY_EXISTS -> new SpotkitException.AlreadyExists(message);
      case SHUTTING_DOWN -> new SpotkitException.ShuttingDown(message);
      case NOT_CONFIGURED -> new SpotkitException.NotConfigured(message);
      case GENERATION_EXHAUSTED -> new SpotkitException.GenerationExhausted(message);
      case DATA_LOST -> new SpotkitException.DataLost(message);
      case STALE_GENERATION -> new SpotkitException.StaleGeneration(message);
      case INVALID_OPERATION -> new SpotkitException.InvalidOperation(message);
      case INTERNAL_FAILURE -> new SpotkitException.InternalFailure(message);
      case REJECTED -> new SpotkitException.Rejected(message);
    };
  }

  private static TerminalResult result(final ErrorKind kind) {
    return switch (kind) {
      case NOT_FOUND -> TerminalResult.NOT_FOUND;
      case UNAVAILABLE -> TerminalResult.NOT_CONNECTED;
      case CAPACITY_EXCEEDED -> TerminalResult.BACKPRESSURED;
      case DEADLINE_EXCEEDED -> TerminalResult.TIMED_OUT;
      case TYPE_MISMATCH, INVALID_OPERATION -> TerminalResult.INVALID_ARGUMENT;
      case STALE_GENERATION -> TerminalResult.INVALID_STATE;
      case ALREADY_EXISTS -> TerminalResult.CONFLICT;
      case SHUTTING_DOWN -> TerminalResult.TERMINATED;
      case NOT_CONFIGURED -> TerminalResult.NOT_SUPPORTED;
      case GENERATION_EXHAUSTED, DATA_LOST, INTERNAL_FAILURE -> TerminalResult.INTERNAL_ERROR;
      case REJECTED -> TerminalResult.REJECTED;
    };
  }

  private static ErrorKind kindOf(final TerminalResult result) {
    return switch (result) {
      case NOT_FOUND -> ErrorKind.NOT_FOUND;
      case TIMED_OUT -> ErrorKind.DEADLINE_EXCEEDED;
      case TERMINATED -> ErrorKind.SHUTTING_DOWN;
      case CONFLICT -> ErrorKind.ALREADY_EXISTS;
      case BUSY, BACKPRESSURED -> ErrorKind.CAPACITY_EXCEEDED;
      case NOT_CONNECTED -> ErrorKind.UNAVAILABLE;
      case INVALID_ARGUMENT, REJECTED, PROTOCOL_ERROR -> ErrorKind.INVALID_OPERATION;
      case INVALID_STATE -> ErrorKind.STALE_GENERATION;
      case NOT_SUPPORTED -> ErrorKind.NOT_CONFIGURED;
      case OK, INTERNAL_ERROR -> ErrorKind.INTERNAL_FAILURE;
    };
  }
}
