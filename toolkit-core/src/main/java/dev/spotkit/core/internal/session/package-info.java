/**
 * The client-session boundary of the runtime, below relocation. Not API. Owners, one class a stage:
 * <ul>
 *   <li>binding, seal, hold and route switch (command 44) on the session owner:
 *       {@link dev.spotkit.core.internal.session.SessionBinder};</li>
 *   <li>the session as a relocated actor sees it: {@link dev.spotkit.core.internal.session.BoundSession}.</li>
 * </ul>
 * Known exception to the layering ({@code dev.spotkit.core.arch.LayeringTest}): the barrier follows a move, so both
 * reach up to {@code Relocations} and {@code RelocationSource}.
 */
package dev.spotkit.core.internal.session;
