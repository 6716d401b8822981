package dev.spotkit.core;

import dev.spotkit.core.internal.runtime.NodeRuntime;

/**
 * What is left in toolkit-core of MeshOutboundBoundTest, which moved to toolkit-it (issue 15): the reflective
 * runtime accessor AggregateSealTest still uses. It goes when that test moves to toolkit-it too.
 */
final class MeshOutboundBoundTest {
  private MeshOutboundBoundTest() {
  }

  static NodeRuntime runtime(final MeshNode node) throws ReflectiveOperationException {
    final java.lang.reflect.Field field = MeshNode.class.getDeclaredField("rt");
    field.setAccessible(true);
    return (NodeRuntime) field.get(node);
  }
}
