package dev.spotkit.core.location;

/** The descriptor records write ownerId, leaseGeneration and descriptorRevision twice; both copies must match. */
final class DescriptorCopies {
  private DescriptorCopies() {
  }

  static void check(final RecordJson.Node descriptor, final String ownerId, final long lease, final long revision) {
    if (!descriptor.string("ownerId").equals(ownerId)) {
      throw descriptor.malformed("ownerId", "differs from the top-level ownerId '" + ownerId + "'");
    }
    if (descriptor.u64("leaseGeneration", 1) != lease) {
      throw descriptor.malformed("leaseGeneration", "differs from the top-level leaseGeneration " + lease);
    }
    if (descriptor.u64("descriptorRevision", 1) != revision) {
      throw descriptor.malformed("descriptorRevision", "differs from the top-level descriptorRevision " + revision);
    }
  }
}
