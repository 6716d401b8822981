/**
 * Message Follow (spec 002 section 7.3, spec 001 section 10, spec 000 section 9): the previous owner's table of
 * committed source-to-target routes, used to forward work that reaches an old address after a move. Pure data and
 * decisions; the driver does the forwarding.
 */
package dev.spotkit.relocation.follow;
