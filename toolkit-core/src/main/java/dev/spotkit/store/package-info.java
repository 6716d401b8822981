/**
 * The store SPI (Location Store and Relocation Store) and the explicit in-memory providers.
 *
 * <p>Decisions written down here:
 * <ul>
 *   <li>This package imports nothing else of Spotkit (spec 002 section 2.1), checked by an ArchUnit test. It
 *       knows keys, bytes and versions only: no descriptor, lease, authority or capacity type (section 2.1);
 *       the framework's records and keys live in {@code dev.spotkit.core.location}.</li>
 *   <li>Keys are Java strings that must have a UTF-8 form (1..1024 bytes). The framework passes the logical
 *       key preimage of spec 002 section 3.4 (parts joined by a 0x00 character) or a counter's logical key;
 *       a Redis provider derives the physical key {@code {prefix}:{zlink-location-v3}:opaque:sha256hex(key)}
 *       and keeps the key itself in the stored member.</li>
 *   <li>Asynchronous: every call returns a {@link java.util.concurrent.CompletionStage}, so a Lettuce provider
 *       answers from its event loop without blocking it; failures are {@link dev.spotkit.store.StoreException}
 *       (Unavailable: not applied; Indeterminate: may have applied, re-read). Misuse (a limit broken) throws
 *       {@link dev.spotkit.store.StoreLimitException} at once, when the request value is built.</li>
 *   <li>Values are {@link dev.spotkit.store.StoreBytes}: immutable, so a provider never changes bytes it
 *       returned and never sees a caller change bytes it keeps (section 10).</li>
 *   <li>Scans read one point in time; how a provider keeps it (the in-memory store copies the range on the
 *       first page) is not part of the contract.</li>
 *   <li>Generations are not a provider operation: the framework issues them by conditional writes of counter
 *       records in the same batch as the record they gate (spec 002 section 3.2).</li>
 *   <li>No hidden store: the in-memory providers exist only where the application creates them (MEM-01).</li>
 * </ul>
 */
package dev.spotkit.store;
