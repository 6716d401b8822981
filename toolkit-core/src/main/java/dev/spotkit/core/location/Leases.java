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
   * @param deadCondition present when the run is gone for good (the record is missing, or names another
   *     LeaseGeneration, or is past its expiry): ExpectAbsent of the lease key, or ExpectVersion at the version
   *     read, so a batch that acts on the run being gone applies only while the store still says so.
   */
  record Check(Optional<Condition> condition, String why, StoreNow now, Optional<Condition> deadCondition) {
    boolean valid() {
      return condition.isPresent();
    }

    /**
     * Whether the run is gone for good: its lease record is missing (expired in the store, or released) or names
     * another LeaseGeneration. A lease that is unreadable is neither valid nor provably gone.
     *
     * @return true when {@link #deadCondition} is present.
     */
    boolean gone() {
      return deadCondition.isPresent();
    }
  }

  static Check check(final LocationStore store, final String ownerId, final LeaseGeneration generation,
      final Duration timeout) {
    final LogicalKey key = LocationKeys.ownerLease(ownerId);
    return check(ownerId, generation, StoreCalls.await(store.read(key.preimage()), timeout, "read of " + key));
  }

  /**
   * The lease check of one host run from a read of its lease key made elsewhere (e.g. in one
   * {@link LocationStore#readAll} with the other keys of a batch).
   *
   * @param ownerId the run's OwnerId.
   * @param generation the run's LeaseGeneration.
   * @param read the answer for {@code LocationKeys.ownerLease(ownerId).preimage()}.
   * @return the check.
   */
  static Check check(final String ownerId, final LeaseGeneration generation, final ReadResult read) {
    final LogicalKey key = LocationKeys.ownerLease(ownerId);
    return switch (read) {
      case ReadResult.Missing missing -> new Check(Optional.empty(), "owner lease " + key
          + " is missing (expired or released)", missing.now(),
          Optional.of(new Condition.ExpectAbsent(key.preimage())));
      case ReadResult.Found found -> {
        final OwnerLeaseRecord lease;
        try {
          lease = OwnerLeaseRecord.decode(found.value());
        } catch (RecordDecodeException e) {
          yield new Check(Optional.empty(), "owner lease " + key + " is unreadable: " + e.getMessage(), found.now(),
              Optional.empty());
        }
        if (!lease.ownerId().equals(ownerId) || !lease.leaseGeneration().equals(generation)) {
          yield new Check(Optional.empty(), "owner lease " + key + " belongs to LeaseGeneration "
              + lease.leaseGeneration() + ", not " + generation, found.now(),
              Optional.of(new Condition.ExpectVersion(key.preimage(), found.version())));
        }
        if (found.expiresAtMillis().isPresent() && found.expiresAtMillis().getAsLong() <= found.now().epochMillis()) {
          yield new Check(Optional.empty(), "owner lease " + key + " expired at store time "
              + found.expiresAtMillis().getAsLong() + " ms (now " + found.now().epochMillis() + " ms)", found.now(),
              Optional.of(new Condition.ExpectVersion(key.preimage(), found.version())));
        }
        yield new Check(Optional.of(new Condition.ExpectVersion(key.preimage(), found.version())), "", found.now(),
            Optional.empty());
      }
    };
  }
}
