package dev.spotkit.core.wire;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.relocation.wire.Fields;
import dev.spotkit.relocation.wire.WireIn;

/**
 * Validation of record fields on the encoding side: the shared wire rules of toolkit-relocation
 * ({@link Fields.Rules}), bound to core's misuse type. A bad value is the caller's mistake and throws
 * {@link SpotkitException.InvalidOperation} naming the field, the value and the limit. Decoders never reach these
 * throws, because {@link WireIn} checks the same rules first and reports them as
 * {@link dev.spotkit.relocation.wire.WireFormatException}.
 */
final class Checks {

  /** The rules; immutable. */
  static final Fields.Rules RULES = Fields.rules(SpotkitException.InvalidOperation::new);

  private Checks() {
  }
}
