/**
 * The node-to-node mesh transport: Netty (NIO) TCP connections between MeshNodes, one authenticated,
 * ordered connection per peer pair, carrying framework frames ({@code dev.spotkit.core.wire}) inside a
 * 4-byte length prefix.
 *
 * <h2>What the runtime calls</h2>
 * <ul>
 *   <li>{@link dev.spotkit.core.mesh.MeshTransport#start(MeshConfig, MeshListener)}: binds 127.0.0.1:0 by
 *       default; {@link dev.spotkit.core.mesh.MeshTransport#localAddress()} is the endpoint to publish in the
 *       node's descriptor.</li>
 *   <li>{@link dev.spotkit.core.mesh.MeshTransport#connect(java.net.InetSocketAddress, dev.spotkit.core.NodeRid)}
 *       with the endpoint and NodeRid read from a peer's descriptor, giving a
 *       {@link dev.spotkit.core.mesh.PeerConnection}: ordered {@code send(frame)}, {@code request(encoder,
 *       deadline)} correlated by command 20's correlation with an absolute deadline, {@code close()},
 *       {@code closeFuture()}.</li>
 *   <li>{@link dev.spotkit.core.mesh.MeshListener}: every inbound frame ({@code onFrame}), connection up
 *       ({@code onConnected}) and lost ({@code onConnectionLost}), on the connection's event loop. The
 *       runtime hands frames to mailboxes; it never runs actor code or blocks there.</li>
 * </ul>
 *
 * <h2>Handshake</h2>
 * Both sides send a fresh 32-byte nonce with their NodeRid and lifecycle generation; the acceptor answers with
 * an HMAC-SHA256 proof over both hellos, the dialer checks it and the expected NodeRid and answers with its
 * own proof (different label), the acceptor checks that and accepts or rejects (see
 * {@code Handshake}). The secret never travels. Proofs are compared in constant time. Nothing but handshake
 * messages is accepted before ACCEPT: a framework frame earlier is {@code UNAUTHENTICATED_FRAME}. Each hello also
 * carries its sender's frame limit (u32 after the nonce, covered by the proofs; a hello without it, the older form,
 * is still accepted and answered in that form, its sender's limit taken as the 16 MiB default): a node never sends
 * a frame its peer would refuse ({@code PeerConnection.peerMaxFrameLength()}; over it, {@code CapacityExceeded} at
 * the sender). The handshake is Spotkit's own (spec and golden fixtures fix only the framework frames inside).
 *
 * <h2>Outbound bound</h2>
 * Each connection counts the bytes handed to it and not yet written to the socket, queued event-loop tasks
 * included ({@link dev.spotkit.core.mesh.MeshConfig#maxPendingOutboundBytes()}, default 32 MiB). The ordinary send
 * path (application messages and requests) waits for room until its deadline, then fails with
 * {@code CapacityExceeded}; framework frames are counted and never refused.
 *
 * <h2>One connection per pair</h2>
 * The acceptor decides, under one lock ({@code PeerTable}), before the dialer may use the connection. With
 * both nodes dialing at once, the connection dialed by the lower NodeRid (unsigned) survives; the other is
 * rejected as a duplicate and its dialer's {@code connect} completes with the survivor. A higher lifecycle
 * generation of a known peer replaces its old connection ({@code SUPERSEDED}).
 *
 * <h2>Bad input</h2>
 * Malformed (empty frame, unknown magic, bad head), oversized (over
 * {@link dev.spotkit.core.mesh.MeshConfig#maxFrameLength()}, default 16 MiB, checked on the length before
 * any byte of the body is buffered), or unauthenticated frames close the connection; the typed
 * {@link dev.spotkit.core.mesh.CloseReason} is logged at WARN with the values, and given to
 * {@code onConnectionLost}. Frame bodies are not decoded here, except a command 20's correlation; decoding a
 * body and deciding what a bad one means is the runtime's job with the wire codecs.
 *
 * <h2>ByteBuf ownership</h2>
 * <ul>
 *   <li>Inbound: the cumulation belongs to {@code LengthFieldBasedFrameDecoder}; each frame it emits is a
 *       retained slice owned by {@code MeshFrameDecoder}, whose base class releases it after copying the
 *       bytes into a {@code byte[]}. One exception: a command 52 relocationState with a well-formed head is not
 *       copied; it goes up as a {@code BufferedFrame} holding one more reference, which the handshake handler
 *       releases (a framework frame before the handshake) or the peer handler hands, with its ownership, to
 *       {@link dev.spotkit.core.mesh.MeshListener#onStateFrame} (the listener releases it exactly once; the
 *       default copies it to a {@code byte[]} for {@code onFrame} and releases it). Every other frame reaches
 *       handlers and the listener as a {@code byte[]}.</li>
 *   <li>Outbound: {@code send} wraps the caller's array without copying (the caller must not modify it
 *       afterwards); the wrapped buffer is owned by Netty from {@code writeAndFlush} on and released by it,
 *       also when the write fails. Handshake messages are written the same way.</li>
 * </ul>
 *
 * <h2>Threads and blocking</h2>
 * Sends from any thread go through the connection's event loop queue, so call order is write order. Request
 * deadlines are event-loop timers; nothing here waits. The only lock ({@code PeerTable}) guards map updates
 * and is never held during I/O or a listener call.
 *
 * <h2>Not done yet</h2>
 * No outbound byte budget or backpressure signal per connection (the relocation layer's in-flight budget
 * will sit on top), no automatic reconnect, no liveness probes, no TLS (the HMAC proves membership; it does
 * not encrypt or authenticate later frames).
 */
package dev.spotkit.core.mesh;
