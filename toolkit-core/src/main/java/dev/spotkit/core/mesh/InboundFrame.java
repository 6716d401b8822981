package dev.spotkit.core.mesh;

/**
 * One frame cut and classified by {@link MeshFrameDecoder}: a handshake message or a framework frame whose
 * head is well formed. Not reference counted: the bytes were copied out of the channel's buffer.
 *
 * @param handshake true for a handshake message ({@code 53 4B ...}), false for a framework frame
 *     ({@code 5A 4D 01 ...}).
 * @param bytes the frame without its length prefix.
 */
record InboundFrame(boolean handshake, byte[] bytes) {
}
