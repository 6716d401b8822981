/**
 * The bottom layer of the node runtime: cells, turns, timers and messaging. Not API (module-info exports it to no
 * one). Layers, bottom to top: runtime, mesh, creation, join, session, relocation; each depends only on those
 * below, except the known exceptions written in {@code dev.spotkit.core.arch.LayeringTest}.
 *
 * <p>Owners, one class a stage:
 * <ul>
 *   <li>node start and close, registries, the parts: {@link dev.spotkit.core.internal.runtime.NodeRuntime} (the
 *       composition root: it holds every stage's owner, which is why this layer reaches up to all of them);</li>
 *   <li>one object's mailbox, handlers and turn loop: {@link dev.spotkit.core.internal.runtime.Cell}
 *       ({@link dev.spotkit.core.internal.runtime.ActorCell}, {@link dev.spotkit.core.internal.runtime.SpotCell});
 *       its state: {@link dev.spotkit.core.internal.runtime.CellState};</li>
 *   <li>the running turn: {@link dev.spotkit.core.internal.runtime.Turn}; named timers:
 *       {@link dev.spotkit.core.internal.runtime.CellTimers};</li>
 *   <li>resolve and offer a message: {@link dev.spotkit.core.internal.runtime.Messaging}, on
 *       {@link dev.spotkit.core.internal.runtime.Address} and {@link dev.spotkit.core.internal.runtime.Envelope};
 *       replies and typed errors: {@link dev.spotkit.core.internal.runtime.ReplySink},
 *       {@link dev.spotkit.core.internal.runtime.ReplyErrors}; message copies:
 *       {@link dev.spotkit.core.internal.runtime.JsonCopier};</li>
 *   <li>endings (close, destroy, node close): {@link dev.spotkit.core.internal.runtime.Lifecycle}, across the mesh
 *       {@link dev.spotkit.core.internal.runtime.RemoteLifecycle};</li>
 *   <li>Location Store writes: {@link dev.spotkit.core.internal.runtime.StoreOps}; this node's descriptor:
 *       {@link dev.spotkit.core.internal.runtime.Descriptors}; configuration:
 *       {@link dev.spotkit.core.internal.runtime.NodeConfig}; id rules: {@link dev.spotkit.core.internal.runtime.Ids};
 *       listener checks: {@link dev.spotkit.core.internal.runtime.Listen}; the API facades:
 *       {@link dev.spotkit.core.internal.runtime.Facades}.</li>
 * </ul>
 */
package dev.spotkit.core.internal.runtime;
