/**
 * The examples, compiled as a module that reads only Spotkit's exported API: if a sample needed an internal
 * package, this module would not compile. The jar is shaded to run from the class path (the shade step drops
 * every module-info.class), so the {@code opens} only matter when it is run from the module path: picocli builds
 * the commands reflectively, Jackson (through toolkit-core's default JSON codec) reads the chat records.
 */
module dev.spotkit.examples {
  requires dev.spotkit.core;
  requires dev.spotkit.redis;
  requires info.picocli;
  requires com.fasterxml.jackson.databind; // spotkit-admin --json
  requires HdrHistogram;
  // the raw Netty chat server (RawChatServer), the benchmark's baseline
  requires io.netty.buffer;
  requires io.netty.codec;
  requires io.netty.common;
  requires io.netty.handler;
  requires io.netty.transport;
  requires org.slf4j;
  requires micrometer.registry.prometheus;
  requires jdk.httpserver;
  requires java.management; // chat-bench: the JVM flags a server child process is started with

  opens dev.spotkit.examples to info.picocli;
  opens dev.spotkit.examples.admin to info.picocli;
  opens dev.spotkit.examples.chat to info.picocli, com.fasterxml.jackson.databind;
  opens dev.spotkit.examples.game to info.picocli, com.fasterxml.jackson.databind;
}
