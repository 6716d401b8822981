/**
 * Metrics (Micrometer) and the node event feed: {@link dev.spotkit.core.internal.observe.NodeMetrics} holds every
 * meter of one node and the hooks the runtime calls, {@link dev.spotkit.core.internal.observe.TypeMeters} the meters
 * of one actor or spot type that a cell caches, {@link dev.spotkit.core.internal.observe.EventBus} the listeners of
 * {@code MeshNode.events()}, and the timed store decorators time every Location and Relocation Store call.
 *
 * <p>Decisions written down here:
 * <ul>
 *   <li><b>Off costs nothing.</b> Without {@code MeshNode.Builder.metrics(...)} no meter exists: cells hold a null
 *       {@link dev.spotkit.core.internal.observe.TypeMeters} (one null check per message), every other hook returns
 *       on a null field, and the stores are not wrapped.</li>
 *   <li><b>Hot path.</b> Per message, with metrics on: two {@code System.nanoTime()} reads and two
 *       {@code LongAdder} adds on the {@link dev.spotkit.core.internal.observe.TypeMeters} the cell cached when it was
 *       built (looked up once per cell by kind and type, never per message); the turn timer and the handled counters
 *       are Micrometer function meters that read the adders at scrape time (a {@code Timer} per message cost twice
 *       as much: benchmarks/RESULTS.md, "Metrics on"). Mailbox depth is a gauge computed at scrape time by walking
 *       the cells of the type, so offers pay nothing for it.</li>
 *   <li><b>One node, one set of meters.</b> Meters carry no node tag (a NodeRid is new per start and would grow the
 *       series without bound); the node removes its meters from the registry when it closes, so a registry outlives
 *       the nodes that used it. Two nodes running at once in one process need a registry each, or common tags that
 *       tell them apart.</li>
 *   <li><b>Events.</b> Emitted on the thread that saw the fact (a relocation lane, a store answer, the close path),
 *       logged there as one key=value line, and delivered to listeners on one virtual thread per node through a
 *       bounded queue: a listener never runs inside a dispatcher turn, a Netty event loop or a system timer.</li>
 * </ul>
 */
package dev.spotkit.core.internal.observe;
