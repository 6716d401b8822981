/**
 * The Spotkit test kit (issue 15): {@link dev.spotkit.testkit.TestMesh} starts N MeshNodes on loopback with shared
 * in-memory stores, {@link dev.spotkit.testkit.Probe} awaits what handlers record, and
 * {@link dev.spotkit.testkit.FaultyLocationStore} injects Location Store faults. For tests only.
 */
module dev.spotkit.testkit {
  requires transitive dev.spotkit.core;

  exports dev.spotkit.testkit;
}
