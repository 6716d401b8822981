package dev.spotkit.core;

/**
 * How the state value of {@code preserveState(codec, capture, restore)} ({@link ActorOptions},
 * {@link UserSpotOptions}, {@link InstanceSpotOptions}) travels on a move (PreserveStateWith, spec 000 section 6;
 * issue 15): the source encodes the value its capture function returned, the bytes travel in the move's CRC-32C
 * checked chunks, and the target decodes them and hands the value to the restore function. {@link #json} is the
 * Jackson codec behind {@code preserveState(stateType, capture, restore)}; give your own (Protocol Buffers, Kryo, a
 * hand-written layout) for a compact or versioned format.
 *
 * <p>Errors: an exception from {@link #encode} fails the move on the source with
 * {@link SpotkitException.InvalidOperation}; one from {@link #decode} fails the Restore on the target, whose log
 * names it, and the move's caller gets {@link SpotkitException.InternalFailure} (the target answers command 53
 * {@code RESTORE_FAILED}, a code without text). Both happen before relay-ready, so the object keeps serving where it
 * was and nothing is lost (spec 001 section 9). A codec is called from the object's turn (encode on the
 * source, decode on the target before the instance takes a message); one instance may serve every object of a
 * type at once, so it must be thread-safe.
 *
 * @param <T> the state type.
 */
public interface StateCodec<T> {
  /**
   * The state as bytes.
   *
   * @param state the value capture returned, never null.
   * @return the bytes to move; any length the move's state limit allows (the node's relocation chunking applies).
   * @throws Exception when the value cannot be encoded (the move fails on the source with InvalidOperation).
   */
  byte[] encode(T state) throws Exception;

  /**
   * The state from the bytes {@link #encode} made on the source (possibly on a node of another version).
   *
   * @param bytes the moved bytes.
   * @return the value for restore; not null.
   * @throws Exception when the bytes do not decode (the target's Restore fails; the caller gets InternalFailure).
   */
  T decode(byte[] bytes) throws Exception;

  /**
   * The JSON codec through Jackson: UTF-8 JSON of a record of plain values (Strings, numbers, booleans, enums,
   * records, {@code java.util} collections and maps, {@code Optional}, {@code java.time} values). Unknown JSON
   * properties are ignored on decode (a newer node may send a field an older one does not know); a missing one is
   * Java's default (null, 0, false).
   *
   * @param stateType the state's class, e.g. {@code PlayerState.class}.
   * @param <T> the state type.
   * @return the codec.
   * @throws SpotkitException.InvalidOperation when {@code stateType} is null.
   */
  static <T> StateCodec<T> json(final Class<T> stateType) {
    return JsonState.json(stateType);
  }
}
