/**
 * Framework-side Location records (internal: not an application API): logical keys, canonical JSON records,
 * generation counters, and the runtime's record view.
 *
 * <p>Decisions written down here:
 * <ul>
 *   <li>Keys: {@link dev.spotkit.core.location.LogicalKey} is the preimage of spec 002 section 3.4 (UTF-8 parts
 *       joined by 0x00); it is the key given to the store SPI. {@code sha256Hex()} is the last segment of the
 *       Redis key, derived by the Redis provider, kept here for the golden key vectors.</li>
 *   <li>Values: canonical compact JSON written with jackson-core's generator in a fixed field order; 64-bit
 *       generations, revisions and timestamps as JSON strings, weights, limits and counts as JSON numbers, bytes
 *       as standard base64 with padding; non-ASCII characters are written as UTF-8, not escaped (the golden
 *       vectors are ASCII only, so this is Spotkit's reading of "canonical"). Decoders check
 *       {@code recordVersion} first and throw {@link dev.spotkit.core.location.RecordDecodeException.UnknownVersion}
 *       for anything but 1; unknown extra fields are ignored, missing or mistyped ones are
 *       {@link dev.spotkit.core.location.RecordDecodeException.Malformed}.</li>
 *   <li>Generations: three counter records ({@link dev.spotkit.core.location.GenerationCounter}) hold the next
 *       value as a bare decimal; issuing puts value + 1 by CAS, in the same batch as the gated record where the
 *       caller can; 2^63-1 is the exhausted sentinel (LOC-02). The three generations have types of their own
 *       (ObjectGeneration, AuthorityOwnerGeneration, LeaseGeneration), so they cannot be swapped (LOC-01).</li>
 *   <li>Usage: spec 002 requires a node's usage to be checked and changed in the same request as the authority
 *       row but names no key; Spotkit keeps it in its own {@link dev.spotkit.core.location.NodeCapacityRecord} at
 *       {@code node-capacity\0{MeshName}\0{hex(RoutingId)}}. {@link dev.spotkit.core.location.PlacementBatches}
 *       writes it together with the row (Reserve, Commit, Abort, Delete); the descriptor's counts are only the
 *       operator copy. {@link dev.spotkit.core.location.NodeDirectory}, {@link dev.spotkit.core.location.Placement}
 *       and {@link dev.spotkit.core.location.LocationQuery} are the discovery, choice and operator-query side.</li>
 *   <li>The MessagePack member of the Redis layout (tag 0x01 + array of five) belongs to toolkit-redis.</li>
 * </ul>
 */
package dev.spotkit.core.location;
