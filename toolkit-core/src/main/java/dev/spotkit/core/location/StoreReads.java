package dev.spotkit.core.location;

import dev.spotkit.store.ReadResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The reads of one try of a {@link PlacementBatches} operation (spec 002 section 6.1, read then CAS): keys asked
 * together in one {@link dev.spotkit.store.LocationStore#readAll} each time, answers kept for the rest of the try
 * (never across tries: a retry reads everything again). Every key read is pinned by a condition of the try's write,
 * so an answer kept here can make the write Conflict, never apply on stale data. Not thread-safe: one try, one
 * thread.
 */
final class StoreReads {
  private final Map<String, ReadResult> answers = new HashMap<>();
  private final Function<List<String>, List<ReadResult>> readAll;

  /** Reads {@code first} at once (one round trip; none when empty). */
  StoreReads(final Function<List<String>, List<ReadResult>> readAll, final List<String> first) {
    this.readAll = readAll;
    fetch(first);
  }

  /** Reads, in one round trip, those of {@code keys} not read yet in this try; none when all were. */
  void fetch(final List<String> keys) {
    final List<String> missing = new ArrayList<>(keys.size());
    for (String key : keys) {
      if (!answers.containsKey(key) && !missing.contains(key)) {
        missing.add(key);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    final List<ReadResult> results = readAll.apply(missing);
    for (int i = 0; i < missing.size(); i++) {
      answers.put(missing.get(i), results.get(i));
    }
  }

  /** The answer for {@code key}: the one read in this try, or one read now. */
  ReadResult get(final String key) {
    fetch(List.of(key));
    return answers.get(key);
  }
}
