package dev.spotkit.core;

/**
 * Builds a spot for its registration; usually a constructor reference ({@code Room::new}). The spot must
 * return this same context from {@link Spot#context()}; a spot that returns another is never made Ready
 * (spec 003 section 7).
 *
 * @param <C> the context kind: {@link EntrySpotContext}, {@link UserSpotContext} or
 *     {@link InstanceSpotContext}.
 * @param <S> the spot type.
 */
@FunctionalInterface
public interface SpotFactory<C extends SpotContext, S extends Spot> {
  /**
   * Builds the spot.
   *
   * @param context the spot's context.
   * @return a new spot, never null.
   */
  S create(C context);
}
