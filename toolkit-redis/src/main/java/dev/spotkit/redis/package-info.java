/**
 * The Redis providers of the store SPI: {@link dev.spotkit.redis.RedisLocationStore} and
 * {@link dev.spotkit.redis.RedisRelocationStore}, on Lettuce (async, one shared connection per store), with the
 * cross-language layout of spec 002 section 3.4 and FACTS.md "Redis layout" ({@link dev.spotkit.redis.RedisKeys},
 * {@link dev.spotkit.redis.OpaqueRecord}).
 *
 * <pre>{@code
 * RedisStoreOptions options = RedisStoreOptions.of("redis://127.0.0.1:6379", "app1");
 * RedisLocationStore locations = RedisLocationStore.connect(options);
 * RedisRelocationStore payloads = RedisRelocationStore.connect(options);
 * MeshNode node = MeshNode.builder().locationStore(locations).relocationStore(payloads)
 *     .closeStoresOnClose()   // the node closes both once when it closes
 *     ...start();
 * }</pre>
 */
package dev.spotkit.redis;
