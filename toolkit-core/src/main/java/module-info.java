/**
 * Spotkit's public API and runtime (DESIGN.md "Modules and dependency direction"). The API is three packages:
 * {@code dev.spotkit.core} (actors, spots, nodes, refs, errors), {@code dev.spotkit.core.session} (client
 * sessions) and {@code dev.spotkit.store} (the store SPI and the in-memory stores). Everything else is
 * implementation: exported to no one, except {@code dev.spotkit.core.location} to toolkit-redis, whose providers
 * derive key prefixes with {@code LogicalKey} exactly as the framework does (spec 002 section 3.4), and the runtime
 * package to the test kit (its timer control).
 */
module dev.spotkit.core {
  requires dev.spotkit.mailbox;
  requires dev.spotkit.relocation;
  // The session API names Netty types (FrameCodec: ChannelPipeline, ByteBuf; FrameDecodeException extends
  // DecoderException), so a user of dev.spotkit.core.session reads them through this module.
  requires transitive io.netty.buffer;
  requires transitive io.netty.codec;
  requires io.netty.codec.http; // WebSocketCodec (its handlers are installed, never named in the API)
  requires transitive io.netty.transport;
  requires io.netty.common;
  requires io.netty.handler;
  requires com.fasterxml.jackson.core;
  requires com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.datatype.jdk8;
  requires com.fasterxml.jackson.datatype.jsr310;
  requires org.slf4j;
  // MeshNode.Builder.metrics(MeterRegistry, Tag...) names Micrometer types: a user passing a registry reads them here.
  requires transitive micrometer.core;

  exports dev.spotkit.core;
  exports dev.spotkit.core.session;
  exports dev.spotkit.store;

  exports dev.spotkit.core.location to dev.spotkit.redis;
  // The test kit's timer control (TestMesh.fireTimer) reaches a node's cells: its runtime field and the cell types.
  exports dev.spotkit.core.internal.runtime to dev.spotkit.testkit;
  opens dev.spotkit.core to dev.spotkit.testkit;
}
