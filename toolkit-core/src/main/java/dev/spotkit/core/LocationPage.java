package dev.spotkit.core;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of {@link LocationQueries#list}: at most the page size asked for (1..1000) entries, in id byte
 * order, all from the one same-point-in-time list the first page started (spec 002 sections 6.2 and 7.4).
 * Immutable.
 *
 * @param entries 0..pageSize locations; fewer than the page size when a filter dropped rows, when the 4 MiB page
 *     bound was reached, or on the last page; no id appears twice in one page cycle.
 * @param continuation the opaque token of the next page, or empty when this was the last page. Pass it back
 *     unchanged with the same kind and filters; never parse or build one (its content is the store provider's,
 *     at most 4,096 bytes before this API's Base64url encoding, so at most 5,462 characters).
 */
public record LocationPage(List<ObjectLocation> entries, Optional<String> continuation) {

  /**
   * Copies the entries.
   *
   * @throws NullPointerException when a part or an entry is null.
   */
  public LocationPage {
    entries = List.copyOf(entries);
    Objects.requireNonNull(continuation, "continuation");
  }
}
