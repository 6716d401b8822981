/**
 * The Location Store SPI and the explicit in-memory provider.
 *
 * <p>Decisions written down here:
 * <ul>
 *   <li>This package imports nothing else of Spotkit (spec 002 section 2.1), checked by an ArchUnit test;
 *       store failures are its own exceptions, which the runtime maps to its typed errors.</li>
 *   <li>The SPI is the single-node subset of FACTS.md "Location Store provider contract": read, an
 *       all-or-nothing conditional write (Missing / VersionIs conditions, Put / Delete mutations), and a
 *       store-wide monotonic ObjectGeneration sequence. Records are typed values for now; the byte-level
 *       canonical JSON, leases and paged scan arrive with the CAS store of the next issue.</li>
 *   <li>No hidden store: {@link dev.spotkit.store.InMemoryLocationStore} exists only where the
 *       application creates it (MEM-01).</li>
 * </ul>
 */
package dev.spotkit.store;
