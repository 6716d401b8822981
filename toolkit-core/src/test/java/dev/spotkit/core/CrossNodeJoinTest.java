package dev.spotkit.core;

/**
 * What is left in toolkit-core of CrossNodeJoinTest, which moved to toolkit-it (issue 15): the cluster secret
 * SpotAggregateSessionTest still uses. It goes when that test moves to toolkit-it too.
 */
final class CrossNodeJoinTest {
  static final String SECRET = "test-cluster-secret-0123456789";

  private CrossNodeJoinTest() {
  }
}
