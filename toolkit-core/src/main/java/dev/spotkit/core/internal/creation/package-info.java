/**
 * Creation of actors and spots, above runtime and mesh. Not API. Owners, one class a stage:
 * <ul>
 *   <li>local creation paths (factory, reservation, commit): {@link dev.spotkit.core.internal.creation.Creations};</li>
 *   <li>placement and commands 47/49 across the mesh: {@link dev.spotkit.core.internal.creation.RemoteCreations},
 *       with the terminal record of {@link dev.spotkit.core.internal.creation.CreationTerminal};</li>
 *   <li>Instance intent and cold activation: {@link dev.spotkit.core.internal.creation.InstanceActivations}.</li>
 * </ul>
 */
package dev.spotkit.core.internal.creation;
