/** The Redis Location Store and Relocation Store providers on Lettuce (DESIGN.md "Location and stores"). */
module dev.spotkit.redis {
  requires transitive dev.spotkit.core;
  requires io.netty.common;
  requires lettuce.core;
  requires org.slf4j;

  exports dev.spotkit.redis;
}
