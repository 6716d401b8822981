package dev.spotkit.core.location;

import dev.spotkit.store.StoreVersion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * The reservations this instance made and has not committed or aborted yet, by authority key: for each, the
 * keys its commit or abort will need besides the row (owner lease, capacity record, aggregate), so those are
 * read in the same round trip as the row. Bounded (the oldest are forgotten past {@link #MAX}); a forgotten or
 * mismatching entry only costs the commit one more round trip. Thread-safety: any thread (one lock).
 */
final class OpenReservations {
  static final int MAX = 4096;
  private final LinkedHashMap<String, Remembered> byKey = new LinkedHashMap<>();

  private record Remembered(StoreVersion version, List<String> keys) {
  }

  synchronized void remember(final String authKey, final StoreVersion version, final AuthorityRecord row) {
    final AuthorityRecord.Allocation a = row.allocation();
    final List<String> keys = new ArrayList<>(3);
    keys.add(LocationKeys.ownerLease(row.ownerId()).preimage());
    keys.add(LocationKeys.nodeCapacity(a.meshName(), a.routingIdHex()).preimage());
    AggregatePointer.spotOf(row.payload()).ifPresent(spot -> keys.add(LocationKeys.aggregate(spot).preimage()));
    byKey.remove(authKey);
    byKey.put(authKey, new Remembered(version, List.copyOf(keys)));
    if (byKey.size() > MAX) {
      byKey.remove(byKey.keySet().iterator().next());
    }
  }

  /** The keys remembered for that reservation (forgotten now), or none. */
  synchronized List<String> take(final String authKey, final StoreVersion version) {
    final Remembered r = byKey.get(authKey);
    if (r == null || !r.version().equals(version)) {
      return List.of();
    }
    byKey.remove(authKey);
    return r.keys();
  }
}
