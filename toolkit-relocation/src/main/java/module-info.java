/**
 * The relocation protocol as a pure state machine (DESIGN.md "Relocation"): no I/O, no threads, no dependency.
 * Every package is an internal of the toolkit, exported to toolkit-core alone, which drives it with real I/O;
 * benchmarks use it from the class path.
 */
module dev.spotkit.relocation {
  exports dev.spotkit.relocation to dev.spotkit.core;
  exports dev.spotkit.relocation.follow to dev.spotkit.core;
  exports dev.spotkit.relocation.session to dev.spotkit.core;
  exports dev.spotkit.relocation.wire to dev.spotkit.core;
}
