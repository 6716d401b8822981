/**
 * Node-to-node routing above the runtime: one owner, {@link dev.spotkit.core.internal.mesh.RouteMesh} (transport,
 * route cache, command 60 messages and their command 20 replies, and the dispatch of every other mesh command to
 * its stage's owner). Not API. Known exception to the layering ({@code dev.spotkit.core.arch.LayeringTest}): the
 * dispatch reaches up to {@code Relocations} and {@code SessionBinder}.
 */
package dev.spotkit.core.internal.mesh;
