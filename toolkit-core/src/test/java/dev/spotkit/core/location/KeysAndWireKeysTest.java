package dev.spotkit.core.location;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.spotkit.core.Spec;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Logical keys with hand-computed vectors (the {@code zla1:} wire authority keys are tested in the wire package). */
class KeysAndWireKeysTest {

  @Test
  @Spec("LOC-27")
  void logicalKeysJoinUtf8PartsWithNulAndHashToLowercaseHex() {
    // SHA-256 values computed independently (Python hashlib) from the preimage bytes shown.
    final LogicalKey lease = LocationKeys.ownerLease("node-1");
    assertThat(HexFormat.of().formatHex(lease.preimageBytes())).isEqualTo("6f776e65722d6c6561736500" + "6e6f64652d31");
    assertThat(lease.sha256Hex()).isEqualTo("278804d8bf3b6e610329a32a5e89715a8a8bbd0eedec2146248ad728c5c64226");
    assertThat(LocationKeys.authority(AuthorityKind.SPOT, "room:\u00e9").sha256Hex())
        .isEqualTo("884baea9776b4bc85d46aa8c4c285811c731edc5f79371e31b4e697c15c86762");
    assertThat(LocationKeys.meshNode("chat", new byte[] {(byte) 0xff, 0}).preimage())
        .isEqualTo("mesh-node\0chat\0ff00");
    assertThat(LocationKeys.meshNode("chat", new byte[] {(byte) 0xff, 0}).sha256Hex())
        .isEqualTo("e2faeb1837639b3a6f6753e56bcef9556a0a6316aba0b335f8847fe9afaa7d54");
    assertThat(LocationKeys.authority(AuthorityKind.ACTOR, "user:42"))
        .as("one id is two keys: actor and spot").isNotEqualTo(LocationKeys.authority(AuthorityKind.SPOT, "user:42"));
  }

  @Test
  void aNulInsideAPartIsRefused() {
    assertThatThrownBy(() -> LocationKeys.authority(AuthorityKind.ACTOR, "a\0b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("logical key part 'a\\0b' contains a NUL byte, which separates the parts; ids, names and"
            + " channels never contain one");
    assertThatThrownBy(() -> LocationKeys.meshNode("main", new byte[0])).isInstanceOf(IllegalArgumentException.class);
  }
}
