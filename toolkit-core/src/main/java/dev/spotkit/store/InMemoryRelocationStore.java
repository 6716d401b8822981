package dev.spotkit.store;

import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;

/**
 * An explicit Relocation Store for one process, with the semantics of {@link RelocationStore} (pinned by the
 * shared conformance suite). Share one instance between the MeshNodes of a JVM. Payloads expire when the
 * injected clock passes their expiry; an expired payload is Missing and a new put may store other bytes there.
 *
 * <p>Calls complete before they return unless a {@link #faults()} rule holds them. Thread-safety: any thread;
 * one lock guards the payloads.
 */
public final class InMemoryRelocationStore implements RelocationStore {

  private record Blob(StoreBytes payload, long expiresAt) {
  }

  private final Object lock = new Object();
  private final Map<String, Blob> blobs = new HashMap<>();
  private final InstantSource clock;
  private final StoreFaults faults = new StoreFaults();

  /** An empty store on the system clock. */
  public InMemoryRelocationStore() {
    this(InstantSource.system());
  }

  /**
   * An empty store on a given clock.
   *
   * @param clock StoreNow's source.
   */
  public InMemoryRelocationStore(final InstantSource clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * The fault hooks of this store.
   *
   * @return the hooks; any thread.
   */
  public StoreFaults faults() {
    return faults;
  }

  @Override
  public CompletionStage<PutResult> put(final RelocationReference reference, final StoreBytes payload,
      final Duration retention) {
    Objects.requireNonNull(reference, "reference");
    Objects.requireNonNull(payload, "payload");
    RelocationStore.checkPut(payload, retention);
    return faults.run(call(StoreFaults.Kind.PUT, reference), () -> {
      synchronized (lock) {
        final StoreNow now = now();
        final Blob current = live(reference, now);
        if (current == null) {
          final long expiresAt = Math.addExact(now.epochMillis(), retention.toMillis());
          blobs.put(reference.value(), new Blob(payload, expiresAt));
          return new PutResult.Stored(expiresAt, now);
        }
        return current.payload().equals(payload) ? new PutResult.AlreadyStored(current.expiresAt(), now)
            : new PutResult.Conflict();
      }
    });
  }

  @Override
  public CompletionStage<GetResult> get(final RelocationReference reference) {
    Objects.requireNonNull(reference, "reference");
    return faults.run(call(StoreFaults.Kind.GET, reference), () -> {
      synchronized (lock) {
        final StoreNow now = now();
        final Blob current = live(reference, now);
        return current == null ? new GetResult.Missing(now)
            : new GetResult.Found(current.payload(), current.expiresAt(), now);
      }
    });
  }

  @Override
  public CompletionStage<RenewResult> renew(final RelocationReference reference, final Duration retention) {
    Objects.requireNonNull(reference, "reference");
    RelocationStore.checkPut(null, retention);
    return faults.run(call(StoreFaults.Kind.RENEW, reference), () -> {
      synchronized (lock) {
        final StoreNow now = now();
        final Blob current = live(reference, now);
        if (current == null) {
          return new RenewResult.Missing(now);
        }
        final long expiresAt = Math.addExact(now.epochMillis(), retention.toMillis());
        blobs.put(reference.value(), new Blob(current.payload(), expiresAt));
        return new RenewResult.Renewed(expiresAt, now);
      }
    });
  }

  @Override
  public CompletionStage<StoreNow> delete(final RelocationReference reference) {
    Objects.requireNonNull(reference, "reference");
    return faults.run(call(StoreFaults.Kind.DELETE, reference), () -> {
      synchronized (lock) {
        blobs.remove(reference.value());
        return now();
      }
    });
  }

  /**
   * Number of live payloads now.
   *
   * @return the count; any thread.
   */
  public int size() {
    synchronized (lock) {
      final long now = clock.millis();
      blobs.values().removeIf(b -> b.expiresAt() <= now);
      return blobs.size();
    }
  }

  private Blob live(final RelocationReference reference, final StoreNow now) {
    final Blob blob = blobs.get(reference.value());
    if (blob != null && blob.expiresAt() <= now.epochMillis()) {
      blobs.remove(reference.value());
      return null;
    }
    return blob;
  }

  private StoreNow now() {
    return new StoreNow(clock.millis());
  }

  private static StoreFaults.Call call(final StoreFaults.Kind kind, final RelocationReference reference) {
    return new StoreFaults.Call(kind, List.of(reference.value()));
  }

  @Override
  public String toString() {
    return "InMemoryRelocationStore[payloads=" + size() + "]";
  }
}
