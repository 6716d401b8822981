/**
 * Actor joins into User Spots (spec 000 section 4.2), above creation. Not API. Owners, one class a stage:
 * <ul>
 *   <li>the join chain on the source (request, defer, finish): {@link dev.spotkit.core.internal.join.Joins}, a
 *       deferred join being {@link dev.spotkit.core.internal.join.PendingJoin};</li>
 *   <li>the target's answer to command 28: {@link dev.spotkit.core.internal.join.JoinApprovals}.</li>
 * </ul>
 * Known exception to the layering ({@code dev.spotkit.core.arch.LayeringTest}): an approved join is carried out as
 * a relocation, so both reach up to {@code Relocations}.
 */
package dev.spotkit.core.internal.join;
