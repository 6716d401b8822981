package dev.spotkit.relocation.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The canonical ordered participant inventory of spec 001 section 4.2: the unit's authority keys sorted by their
 * UTF-8 bytes (unsigned), where participantId = zero-based index + 1. The target rebuilds it from the Location
 * Store's authority keys; the stream itself carries only participantIds. Immutable; any thread.
 *
 * <p>Example ({@code relocation-envelope-v1.json}): {@code actor:z} is 1, {@code actor:é} is 2 ({@code C3 A9}
 * sorts after {@code 7A}), {@code spot:a} is 3.
 */
public final class ParticipantInventory {

  private final List<String> keys;

  private ParticipantInventory(final List<String> keys) {
    this.keys = keys;
  }

  /**
   * Builds the inventory.
   *
   * @param authorityKeys the authority keys in any order, each 1..n UTF-8 bytes, no duplicates.
   * @return the inventory.
   * @throws IllegalArgumentException when a key is null, empty, not encodable as UTF-8, or repeated.
   */
  public static ParticipantInventory of(final Collection<String> authorityKeys) {
    final List<String> sorted = new ArrayList<>();
    for (String k : Fields.present("authorityKeys", authorityKeys)) {
      Fields.utf8("authorityKey", Fields.present("authorityKey", k));
      if (k.isEmpty()) {
        throw new IllegalArgumentException("authorityKey must not be empty");
      }
      sorted.add(k);
    }
    sorted.sort(Fields::compareUtf8);
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).equals(sorted.get(i - 1))) {
        throw new IllegalArgumentException("authorityKey \"" + sorted.get(i) + "\" appears twice");
      }
    }
    return new ParticipantInventory(List.copyOf(sorted));
  }

  /**
   * The number of participants.
   *
   * @return 0..n; valid participantIds are 1..size.
   */
  public int size() {
    return keys.size();
  }

  /**
   * The keys in canonical order.
   *
   * @return an unmodifiable list; element i has participantId i + 1.
   */
  public List<String> keys() {
    return keys;
  }

  /**
   * The participantId of a key.
   *
   * @param authorityKey a key of this inventory.
   * @return 1..size.
   * @throws IllegalArgumentException when the key is not in the inventory.
   */
  public long participantId(final String authorityKey) {
    final byte[] wanted = authorityKey.getBytes(StandardCharsets.UTF_8);
    int lo = 0;
    int hi = keys.size() - 1;
    while (lo <= hi) {
      final int mid = (lo + hi) >>> 1;
      final int c = java.util.Arrays.compareUnsigned(keys.get(mid).getBytes(StandardCharsets.UTF_8), wanted);
      if (c == 0) {
        return mid + 1L;
      }
      if (c < 0) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    throw new IllegalArgumentException("authorityKey \"" + authorityKey + "\" is not a participant of " + keys);
  }

  /**
   * The key of a participantId.
   *
   * @param participantId 1..size.
   * @return the authority key.
   * @throws IllegalArgumentException when out of range.
   */
  public String authorityKey(final long participantId) {
    if (participantId < 1 || participantId > keys.size()) {
      throw new IllegalArgumentException("participantId " + participantId + " must be in 1.." + keys.size());
    }
    return keys.get((int) (participantId - 1));
  }
}
