package dev.spotkit.core.mesh;

/**
 * Emitted by {@link MeshFrameDecoder} in place of a frame it refuses, so the decoder itself never throws and
 * the frames after it are still cut; the handler after it closes the connection with {@link #reason()}.
 *
 * @param reason the typed reason, {@link CloseReason#MALFORMED_FRAME}.
 * @param detail what was wrong, with the offending bytes or values.
 */
record BadFrame(CloseReason reason, String detail) {
}
