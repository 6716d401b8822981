/**
 * The relocation protocol of spec 001 as a pure state machine ("sans-I/O"): no threads, no sockets, no clocks of
 * its own. It consumes events (restore requested, chunk arrived, relay record arrived, relay-ready accepted,
 * cutover arrived, CAS answered or indeterminate, connection lost, clock advanced) and answers with actions (send
 * frame, run CAS, re-read store, merge backlog, open dispatch, remove staging, log warning); toolkit-core drives
 * it with real I/O and tests drive it with a seeded simulator and a fake clock (DESIGN.md "Relocation").
 *
 * <p>Dependency rule (checked by an ArchUnit test): this module imports nothing of toolkit-core, Netty or
 * Redis.
 */
package dev.spotkit.relocation;
