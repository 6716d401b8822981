package dev.spotkit.core;

/** A MeshNode's object role (spec 000 section 1; DESIGN.md "Nodes"). */
public enum ObjectRole {
  /** No objects: node-direct and channel operations only. Needs no Location Store. */
  NONE,
  /** Uses objects hosted elsewhere; needs a Location Store. Hosting nothing, it cannot create objects yet. */
  CLIENT,
  /** Hosts Actors and Spots; needs a Location Store and an Entry Spot. */
  SERVER
}
