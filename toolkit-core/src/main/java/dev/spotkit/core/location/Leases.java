package dev.spotkit.core.location;

import dev.spotkit.store.Condition;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreNow;
import java.time.Duration;
import java.util.Optional;

/** Reads one host run's owner lease and checks it is the expected run and not expired (spec 002 section 3.1). */
final class Leases {
  private Leases() {
  }

  /**
   * The lease check of one host run: a condition that pins the lease record's version, or why it is not valid.
   *
   * @param condition present when valid: ExpectVersion of the lease key at the version read.
   * @param why empty when valid, else the reason, for results and logs.
   * @param now StoreNow of the read.
   */
  record Check(Optional<Condition> condition, String why, StoreNow now) {
    boolean valid() {
      return condition.isPresent();
    }
  }

  static Check check(final LocationStore store, final String ownerId, final LeaseGeneration generation,
      final Duration timeout) {
    final LogicalKey key = LocationKeys.ownerLease(ownerId);
    final ReadResult read = StoreCalls.await(store.read(key.preimage()), timeout, "read of " + key);
    return switch (read) {
      case ReadResult.Missing missing -> new Check(Optional.empty(), "owner lease " + key
          + " is missing (expired or released)", missing.now());
      case ReadResult.Found found -> {
        final OwnerLeaseRecord lease;
        try {
          lease = OwnerLeaseRecord.decode(found.value());
        } catch (RecordDecodeException e) {
          yield new Check(Optional.empty(), "owner lease " + key + " is unreadable: " + e.getMessage(), found.now());
        }
        if (!lease.ownerId().equals(ownerId) || !lease.leaseGeneration().equals(generation)) {
          yield new Check(Optional.empty(), "owner lease " + key + " belongs to LeaseGeneration "
              + lease.leaseGeneration() + ", not " + generation, found.now());
        }
        if (found.expiresAtMillis().isPresent() && found.expiresAtMillis().getAsLong() <= found.now().epochMillis()) {
          yield new Check(Optional.empty(), "owner lease " + key + " expired at store time "
              + found.expiresAtMillis().getAsLong() + " ms (now " + found.now().epochMillis() + " ms)", found.now());
        }
        yield new Check(Optional.of(new Condition.ExpectVersion(key.preimage(), found.version())), "", found.now());
      }
    };
  }
}
