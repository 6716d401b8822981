/**
 * The drivers of toolkit-relocation's state machines, the top layer of the runtime. Not API. Owners, one class a
 * stage:
 * <ul>
 *   <li>the pump driver (lanes, mesh frames 30/31/34/40/52/53, budgets, Message Follow):
 *       {@link dev.spotkit.core.internal.relocation.Relocations};</li>
 *   <li>the source port (seal, capture, chunks, ingress hold, cutover, restoration):
 *       {@link dev.spotkit.core.internal.relocation.RelocationSource};</li>
 *   <li>the target port (staging cell, spans, CAS, open): {@link dev.spotkit.core.internal.relocation.TargetObject};
 *   </li>
 *   <li>host relocation of the Entry Spot's actors ({@code MeshNode.relocate}):
 *       {@link dev.spotkit.core.internal.relocation.HostRelocations};</li>
 *   <li>the operator's move of a SpotWide User Spot with its members ({@code MeshNode.relocateSpot}, spec 000 section
 *       7): {@link dev.spotkit.core.internal.relocation.AggregateMoves} (driver and commands 54-57),
 *       {@link dev.spotkit.core.internal.relocation.AggregateSeal} (source: checks, seal, capture, hold, hand-over),
 *       {@link dev.spotkit.core.internal.relocation.AggregateRestore} (target: verify, restore, CAS, open);</li>
 *   <li>the move of a PerActor User Spot (spec 000 section 7): its shell on the one-row path of the aggregate move
 *       ({@link dev.spotkit.core.internal.relocation.InstanceMoves}), then each member as its own unit
 *       ({@link dev.spotkit.core.internal.relocation.PerActorMoves});</li>
 *   <li>host drains ({@code MeshNode.relocate(RelocateOptions)}):
 *       {@link dev.spotkit.core.internal.relocation.HostDrains}.</li>
 * </ul>
 */
package dev.spotkit.core.internal.relocation;
