package dev.spotkit.bench;

import dev.spotkit.core.NodeRid;
import dev.spotkit.core.mesh.MeshConfig;
import dev.spotkit.core.mesh.MeshListener;
import dev.spotkit.core.mesh.MeshTransport;
import dev.spotkit.core.mesh.PeerConnection;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Two toolkit-core {@link MeshTransport}s in this JVM, a source and a target, each with its own event loops (the
 * production default, {@link MeshConfig#DEFAULT_IO_THREADS}) on 127.0.0.1, and one authenticated connection that
 * the source dialed. Every frame the target receives goes to one of two consumers, on the connection's event loop,
 * in send order (what {@link MeshListener#onFrame} promises): a command 52 still in its receive buffer, as the
 * runtime gets it ({@link MeshListener#onStateFrame}), every other frame as an array. Consumers must not block.
 *
 * <p>Ownership: {@link #send} hands the array to the transport, which writes it without a copy; the caller must not
 * modify it afterwards (reading it again, e.g. resending a prebuilt frame, is fine).
 */
final class MeshLoopback implements AutoCloseable {
    private static final NodeRid SOURCE = new NodeRid(0xA1);
    private static final NodeRid TARGET = new NodeRid(0xB2);
    private static final byte[] SECRET = "spotkit-bench-secret-0123456789ab".getBytes(StandardCharsets.US_ASCII);

    private final MeshTransport source;
    private final MeshTransport target;
    private final PeerConnection connection;

    /**
     * Starts both transports and connects them.
     *
     * @param onTargetFrame gets every frame but command 52 that reaches the target (head included; the array is its
     *     own), on the target's event loop.
     * @param onTargetStateFrame gets every command 52 frame (head included) in the connection's receive buffer, not
     *     copied; it owns the one reference and must release it exactly once, also when it throws.
     * @throws Exception when a transport cannot bind or the handshake does not finish within
     *     {@link Jvm#INVOCATION_TIMEOUT_SECONDS}.
     */
    MeshLoopback(final Consumer<byte[]> onTargetFrame, final Consumer<ByteBuf> onTargetStateFrame) throws Exception {
        source = MeshTransport.start(MeshConfig.builder(SOURCE, 1, SECRET).build(), (from, frame) -> {
            throw new IllegalStateException("the source expects no frames; got " + frame.length + " bytes");
        });
        MeshTransport t = null;
        try {
            t = MeshTransport.start(MeshConfig.builder(TARGET, 1, SECRET).build(), new MeshListener() {
                @Override
                public void onFrame(final PeerConnection from, final byte[] frame) {
                    onTargetFrame.accept(frame);
                }

                @Override
                public void onStateFrame(final PeerConnection from, final ByteBuf frame) {
                    onTargetStateFrame.accept(frame);
                }
            });
            connection = source.connect(t.localAddress(), TARGET).get(Jvm.INVOCATION_TIMEOUT_SECONDS,
                TimeUnit.SECONDS);
        } catch (Exception e) {
            if (t != null) {
                t.close();
            }
            source.close();
            throw e;
        }
        target = t;
    }

    /**
     * Queues one frame on the connection (never blocks).
     *
     * @param frame a framework frame ({@code 5A 4D 01 <cmd> <flags> ...}), at most
     *     {@link MeshConfig#DEFAULT_MAX_FRAME_LENGTH} bytes; owned by the transport from now on.
     * @throws IllegalStateException when the connection is closed.
     */
    void send(final byte[] frame) {
        if (!connection.send(frame)) {
            throw new IllegalStateException("mesh loopback connection closed: " + connection);
        }
    }

    /**
     * Queues one frame given as two parts, {@code head} then {@code length} bytes of {@code body} from
     * {@code offset} (never blocks; neither part is copied, see {@link PeerConnection#send(byte[], byte[], int, int)}).
     *
     * @param head the frame's first bytes; owned by the transport from now on.
     * @param body the array holding the rest; read by the transport, must not be modified afterwards.
     * @param offset where the rest starts in {@code body}.
     * @param length bytes of {@code body} in the frame.
     * @throws IllegalStateException when the connection is closed.
     */
    void send(final byte[] head, final byte[] body, final int offset, final int length) {
        if (!connection.send(head, body, offset, length)) {
            throw new IllegalStateException("mesh loopback connection closed: " + connection);
        }
    }

    @Override
    public void close() {
        source.close();
        target.close();
    }
}
