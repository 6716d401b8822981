/**
 * The Session owner's side of a bound Actor's relocation (spec 001 sections 4.1, 7, 9 and 12; FACTS.md
 * "Sessions"): one {@link dev.spotkit.relocation.session.SessionBarrier} per Session-Actor binding seals the
 * binding on command 42, holds the session's messages, and on command 44 switches the route and submits the held
 * messages (commit) or returns them to the source route (abort), or closes the physical session when
 * SessionRelocationSealTimeout (default 3,000 ms) passes first. Pure: no I/O, no clock of its own, no Location Store
 * access; inputs are the sealed {@link dev.spotkit.relocation.session.SessionEvent}, outputs the sealed
 * {@link dev.spotkit.relocation.session.SessionAction}. Frames are the decoded records of
 * {@link dev.spotkit.relocation.wire.SessionRelocationCodec}.
 */
package dev.spotkit.relocation.session;
