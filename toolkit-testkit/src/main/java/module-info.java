/**
 * The Spotkit test kit (issue 15): {@link dev.spotkit.testkit.TestMesh} starts N MeshNodes on loopback with shared
 * in-memory stores (or stores the test gives), {@link dev.spotkit.testkit.Probe} awaits what handlers record, and
 * the shared in-memory store's {@code faults()} ({@link dev.spotkit.store.StoreFaults}: fail, lose the answer of, or
 * stall the next calls) injects Location Store faults. For tests only.
 */
module dev.spotkit.testkit {
  requires transitive dev.spotkit.core;

  exports dev.spotkit.testkit;
}
