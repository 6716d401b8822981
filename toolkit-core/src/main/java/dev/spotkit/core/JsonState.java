package dev.spotkit.core;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The relocation adapters behind {@code preserveState(stateType, capture, restore)} of {@link ActorOptions},
 * {@link UserSpotOptions} and {@link InstanceSpotOptions} (PreserveStateWith, spec 000 section 6, without a
 * hand-written codec; issue 15): the capture function returns a state value (a record of plain values is the
 * intended shape), which is stored as UTF-8 JSON through Jackson; the target decodes it as {@code stateType} and
 * hands it to the restore function on the instance its factory built. Unknown JSON properties are ignored on
 * restore, so a node one version ahead that added a field can still send state to an older one; a missing one is
 * Java's default (null, 0, false).
 *
 * <p>Errors (each fails the move before relay-ready, so the object keeps serving on its source, nothing lost;
 * spec 001 section 9): capture returning null, or a value Jackson cannot write, is
 * {@link SpotkitException.InvalidOperation} on the source; bytes that do not decode as {@code stateType} are
 * {@link SpotkitException.InvalidOperation} on the target, which fails its Restore (command 53 RESTORE_FAILED: the
 * move's caller gets {@link SpotkitException.InternalFailure}); the same for a {@link StateCodec} the user gives.
 * Thread-safe (one shared mapper).
 */
final class JsonState {
  private static final ObjectMapper MAPPER = JsonMapper.builder()
      .addModule(new Jdk8Module()).addModule(new JavaTimeModule())
      .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .build();

  private JsonState() {
  }

  /** The Jackson codec of {@link StateCodec#json}. */
  static <T> StateCodec<T> json(final Class<T> stateType) {
    if (stateType == null) {
      throw new SpotkitException.InvalidOperation("preserveState needs a state type (or codec), a capture function"
          + " and a restore function, none of them null");
    }
    return new StateCodec<>() {
      @Override
      public byte[] encode(final T state) throws Exception {
        return MAPPER.writeValueAsBytes(state);
      }

      @Override
      public T decode(final byte[] bytes) throws Exception {
        return MAPPER.readValue(bytes, stateType);
      }

      @Override
      public String toString() {
        return stateType.getName();
      }
    };
  }

  /** The codec shared by the three adapters: how the state travels, a capture and a restore function. */
  private record Codec<O, T>(StateCodec<T> codec, Function<? super O, ? extends T> capture,
      BiConsumer<? super O, ? super T> restore) {
    Codec {
      if (codec == null || capture == null || restore == null) {
        throw new SpotkitException.InvalidOperation("preserveState needs a state type (or codec), a capture function"
            + " and a restore function, none of them null");
      }
    }

    byte[] capture(final O owner) {
      final T state = capture.apply(owner);
      if (state == null) {
        throw new SpotkitException.InvalidOperation("the capture function of preserveState(" + codec
            + ") returned null; return a state value");
      }
      try {
        return codec.encode(state);
      } catch (Exception e) {
        throw new SpotkitException.InvalidOperation("the state " + state.getClass().getName() + " cannot be encoded"
            + " by " + codec + " (" + e.getMessage() + ")", e);
      }
    }

    void restore(final O owner, final byte[] bytes) {
      final T state;
      try {
        state = codec.decode(bytes);
      } catch (Exception e) {
        throw new SpotkitException.InvalidOperation("the moved state does not decode by " + codec + " ("
            + e.getMessage() + ")", e);
      }
      if (state == null) {
        throw new SpotkitException.InvalidOperation("the moved state decoded by " + codec + " is null");
      }
      restore.accept(owner, state);
    }
  }

  static <A extends Actor, T> ActorRelocationAdapter<A> actor(final StateCodec<T> stateCodec,
      final Function<? super A, ? extends T> capture, final BiConsumer<? super A, ? super T> restore) {
    final Codec<A, T> codec = new Codec<>(stateCodec, capture, restore);
    return new ActorRelocationAdapter<>() {
      @Override
      public byte[] capture(final A actor) {
        return codec.capture(actor);
      }

      @Override
      public void restore(final A actor, final byte[] state) {
        codec.restore(actor, state);
      }
    };
  }

  static <S extends Spot, T> SpotRelocationAdapter<S> spot(final StateCodec<T> stateCodec,
      final Function<? super S, ? extends T> capture, final BiConsumer<? super S, ? super T> restore) {
    final Codec<S, T> codec = new Codec<>(stateCodec, capture, restore);
    return new SpotRelocationAdapter<>() {
      @Override
      public byte[] capture(final S spot) {
        return codec.capture(spot);
      }

      @Override
      public void restore(final S spot, final byte[] state) {
        codec.restore(spot, state);
      }
    };
  }
}
