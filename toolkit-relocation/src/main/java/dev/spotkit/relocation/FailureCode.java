package dev.spotkit.relocation;

import dev.spotkit.relocation.wire.RelocationFrame;

/**
 * Why a target sends command 53 relocationFailed before its relay-ready reply (spec 001 sections 4.3, 9). Every
 * code is an explicit failure: the source restores itself from the payload in memory if it has not yet accepted
 * a relay-ready reply.
 *
 * <h2>The u32 failureCode of command 53 (the one table)</h2>
 * <table>
 *   <caption>Failure codes on the wire</caption>
 *   <tr><th>u32</th><th>constant</th><th>meaning</th></tr>
 *   <tr><td>35</td><td>{@link #CHECKSUM_MISMATCH}</td><td>relocation data lost:
 *       {@link RelocationFrame.Failed#RELOCATION_DATA_LOST}, the payload or relay failed its CRC-32C</td></tr>
 *   <tr><td>36</td><td>{@link #MANIFEST_CONFLICT}</td><td>restated or violated manifest</td></tr>
 *   <tr><td>37</td><td>{@link #RESTORE_FAILED}</td><td>factory or Restore failed</td></tr>
 *   <tr><td>38</td><td>{@link #SUPERSEDED}</td><td>a newer identity for the object won</td></tr>
 *   <tr><td>39</td><td>{@link #DEADLINE}</td><td>Restore validity expired</td></tr>
 *   <tr><td>40</td><td>{@link #BUSY}</td><td>another relocation of the object is past relay-ready</td></tr>
 *   <tr><td>41</td><td>{@link #TARGET_UNAVAILABLE}</td><td>the target refuses the move: the owner, lease or
 *       target-run fence differs, the node is closing, has no factory for the type or no Entry Spot, or the join's
 *       approval is gone (expired)</td></tr>
 *   <tr><td>42</td><td>{@link #STALE_GENERATION}</td><td>the actor's ObjectGeneration differs from the
 *       target's current record</td></tr>
 *   <tr><td>43</td><td>{@link #SPOT_NOT_FOUND}</td><td>the join's User Spot is no longer Ready on the
 *       target</td></tr>
 *   <tr><td>any other non-zero</td><td>{@link #UNRECOGNIZED}</td><td>a code this receiver does not know
 *       (another runtime, a later version): handled as a generic explicit failure, exactly like the others</td></tr>
 * </table>
 * 35 is fixed by the wire ({@link RelocationFrame.Failed#RELOCATION_DATA_LOST}); 36 to 43 are Spotkit's choice
 * (the spec names no other code), kept next to it so one range covers relocation failures. 41 to 43 exist so the
 * source can end a join with the Failed kind spec 000 section 4 gives each point of failure (Unavailable,
 * InvalidOperation, NotFound) instead of the InternalFailure of {@link #RESTORE_FAILED}; a receiver that does not
 * know them handles them as {@link #UNRECOGNIZED} (an explicit failure, Unavailable).
 */
public enum FailureCode {
  /** The assembled payload's CRC-32C differs from the Restore request's; never retried (section 4.3). */
  CHECKSUM_MISMATCH(RelocationFrame.Failed.RELOCATION_DATA_LOST),
  /** Same identity, different length, chunk count or checksum; or a chunk outside the declared manifest. */
  MANIFEST_CONFLICT(36),
  /** The factory or the Restore of state, queue or timers failed. */
  RESTORE_FAILED(37),
  /** A newer relocation identity for the same object arrived before relay-ready; the later attempt wins. */
  SUPERSEDED(38),
  /** Restore validity expired before the relay-ready reply. */
  DEADLINE(39),
  /** Another relocation of the same object is already past its relay-ready reply on this target. */
  BUSY(40),
  /**
   * The target refuses the move (spec 000 section 4: "no compatible target node", "the owner or membership fence
   * differs"): the source ends the join Unavailable.
   */
  TARGET_UNAVAILABLE(41),
  /** The actor's ObjectGeneration differs from the target's record (spec 000 section 4): InvalidOperation. */
  STALE_GENERATION(42),
  /** The join's User Spot is not Ready on the target any more (spec 000 section 4: "can't be found"): NotFound. */
  SPOT_NOT_FOUND(43),
  /**
   * A received failure code this table does not name: a generic explicit failure. A target of this package never
   * sends it; should a driver encode it, it goes out as 1.
   */
  UNRECOGNIZED(1);

  private final long wireCode;

  FailureCode(final long wireCode) {
    this.wireCode = wireCode;
  }

  /**
   * The non-zero u32 failure code carried by command 53.
   *
   * @return the code of the table above.
   */
  public long wireCode() {
    return wireCode;
  }

  /**
   * The meaning of a received command 53 failure code; the inverse of {@link #wireCode()} for every constant but
   * {@link #UNRECOGNIZED}.
   *
   * @param code the u32 failure code as decoded.
   * @return the named constant, or {@link #UNRECOGNIZED} for any code the table lacks (1 included).
   */
  public static FailureCode fromWire(final long code) {
    for (final FailureCode c : values()) {
      if (c != UNRECOGNIZED && c.wireCode == code) {
        return c;
      }
    }
    return UNRECOGNIZED;
  }
}
