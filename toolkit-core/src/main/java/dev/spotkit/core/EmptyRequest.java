package dev.spotkit.core;

/**
 * The request a callback receives when the caller gave none (spec 000 section 4: "If omitted, an empty
 * request is passed"). Match it with {@code request instanceof EmptyRequest}.
 */
public record EmptyRequest() {
  /** The one value. */
  public static final EmptyRequest INSTANCE = new EmptyRequest();
}
