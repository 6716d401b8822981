package dev.spotkit.core.location;

import dev.spotkit.core.SpotkitException;
import dev.spotkit.store.LocationStore;
import dev.spotkit.store.Mutation;
import dev.spotkit.store.ReadResult;
import dev.spotkit.store.StoreBytes;
import dev.spotkit.store.StoreLimits;
import dev.spotkit.store.WriteBatch;
import dev.spotkit.store.WriteResult;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The participant inventory of a SpotWide User Spot aggregate as a tree of immutable Location Store chunks (spec 000
 * section 7; spec 002 sections 1.2 and 8.1): leaves of at most {@value #MAX_LEAF_ENTRIES} entries and at most
 * {@value #MAX_CHUNK_BYTES} encoded bytes, index chunks above them with at most {@value #MAX_INDEX_CHILDREN} children
 * each, until one chunk, the root, remains. The aggregate authority ({@link AggregateRecord}) names only the root,
 * the entry count and the digest; {@link #read} checks all three.
 *
 * <p>Chunks (canonical JSON, recordVersion 1):
 * <ul>
 *   <li>leaf: {@code {recordVersion, kind:"leaf", entries:[{objectKind, id, objectGeneration, ownerFence, policy}]}},
 *       generations as decimal strings, entries in {@link InventoryEntry#ORDER};</li>
 *   <li>index: {@code {recordVersion, kind:"index", count, children:[{chunk, count}]}}: each child by its SHA-256
 *       (64 lowercase hex) and the number of entries below it.</li>
 * </ul>
 * A chunk is stored at {@link LocationKeys#aggregateInventory} under the SHA-256 of its bytes, so a key always holds
 * the same bytes (immutable by construction) and a reader detects a changed chunk by hashing it.
 *
 * <p>Digest: SHA-256 over every entry's canonical JSON object followed by a line feed, in inventory order; it does
 * not depend on how the entries were split into chunks.
 *
 * <p>Visibility: writing a tree changes no owner and no resolver answer; only the aggregate CAS that names its root
 * makes it the aggregate's inventory (spec 000 section 7: "before commit, the new inventory tree ... isn't visible to
 * the resolver"). Thread-safety: immutable.
 *
 * @param spotId the aggregate's SpotId.
 * @param chunks every chunk, leaves first, the root last.
 * @param rootSha256Hex the root chunk's SHA-256.
 * @param count the number of entries.
 * @param digestSha256Hex the entries' digest.
 */
public record InventoryTree(String spotId, List<Chunk> chunks, String rootSha256Hex, int count,
    String digestSha256Hex) {
  /** Most entries in one leaf chunk (spec 000 section 7). */
  public static final int MAX_LEAF_ENTRIES = 1024;
  /** Most children of one index chunk. */
  public static final int MAX_INDEX_CHILDREN = 1024;
  /** Most encoded bytes of one chunk: 1 MiB (spec 000 section 7). */
  public static final int MAX_CHUNK_BYTES = 1 << 20;
  /** Index levels above the leaves a reader follows at most (1024^8 entries is beyond any store). */
  static final int MAX_DEPTH = 8;
  private static final String NAME = "aggregate inventory chunk";

  /**
   * Copies the chunk list.
   *
   * @throws NullPointerException when a part is null.
   */
  public InventoryTree {
    Objects.requireNonNull(spotId, "spotId");
    chunks = List.copyOf(chunks);
    Objects.requireNonNull(rootSha256Hex, "rootSha256Hex");
    Objects.requireNonNull(digestSha256Hex, "digestSha256Hex");
  }

  /**
   * One encoded chunk.
   *
   * @param sha256Hex the SHA-256 of {@code bytes}, the last part of its key.
   * @param bytes the canonical JSON.
   * @param entries the entries at and below this chunk.
   */
  public record Chunk(String sha256Hex, StoreBytes bytes, int entries) {
  }

  /**
   * Builds the tree of {@code participants}: sorted, split into leaves, indexed.
   *
   * @param spotId the aggregate's SpotId.
   * @param participants the Spot and its members, at least one, no id twice per kind.
   * @return the tree, not yet written.
   * @throws IllegalArgumentException when there is no participant or an id appears twice.
   */
  public static InventoryTree build(final String spotId, final Collection<InventoryEntry> participants) {
    if (participants.isEmpty()) {
      throw new IllegalArgumentException("an aggregate inventory lists at least the Spot itself");
    }
    final List<InventoryEntry> sorted = new ArrayList<>(participants);
    sorted.sort(InventoryEntry.ORDER);
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).objectKind() == sorted.get(i - 1).objectKind()
          && sorted.get(i).id().equals(sorted.get(i - 1).id())) {
        throw new IllegalArgumentException("participant " + sorted.get(i).objectKind().wire() + " '"
            + sorted.get(i).id() + "' appears twice in the inventory of Spot '" + spotId + "'");
      }
    }
    final List<Chunk> all = new ArrayList<>();
    List<Chunk> level = new ArrayList<>();
    for (int from = 0; from < sorted.size(); from += MAX_LEAF_ENTRIES) {
      leaves(sorted.subList(from, Math.min(sorted.size(), from + MAX_LEAF_ENTRIES)), level);
    }
    all.addAll(level);
    for (int depth = 0; level.size() > 1; depth++) {
      if (depth >= MAX_DEPTH) {
        throw new IllegalStateException("inventory of " + sorted.size() + " entries needs more than " + MAX_DEPTH
            + " index levels");
      }
      final List<Chunk> up = new ArrayList<>();
      for (int from = 0; from < level.size(); from += MAX_INDEX_CHILDREN) {
        up.add(index(level.subList(from, Math.min(level.size(), from + MAX_INDEX_CHILDREN))));
      }
      all.addAll(up);
      level = up;
    }
    return new InventoryTree(spotId, all, level.get(0).sha256Hex(), sorted.size(), digest(sorted));
  }

  /** Leaves of at most 1,024 entries; a leaf over 1 MiB is halved until each part fits. */
  private static void leaves(final List<InventoryEntry> entries, final List<Chunk> out) {
    final byte[] bytes = RecordJson.write(g -> {
      g.writeStartObject();
      g.writeNumberField("recordVersion", RecordJson.RECORD_VERSION);
      g.writeStringField("kind", "leaf");
      g.writeArrayFieldStart("entries");
      for (InventoryEntry e : entries) {
        writeEntry(g, e);
      }
      g.writeEndArray();
      g.writeEndObject();
    });
    if (bytes.length > MAX_CHUNK_BYTES && entries.size() > 1) {
      final int half = entries.size() / 2;
      leaves(entries.subList(0, half), out);
      leaves(entries.subList(half, entries.size()), out);
      return;
    }
    out.add(new Chunk(Sha256.hex(bytes), StoreBytes.of(bytes), entries.size()));
  }

  private static Chunk index(final List<Chunk> children) {
    final long count = children.stream().mapToLong(Chunk::entries).sum();
    final byte[] bytes = RecordJson.write(g -> {
      g.writeStartObject();
      g.writeNumberField("recordVersion", RecordJson.RECORD_VERSION);
      g.writeStringField("kind", "index");
      RecordJson.u64(g, "count", count);
      g.writeArrayFieldStart("children");
      for (Chunk c : children) {
        g.writeStartObject();
        g.writeStringField("chunk", c.sha256Hex());
        RecordJson.u64(g, "count", c.entries());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    });
    return new Chunk(Sha256.hex(bytes), StoreBytes.of(bytes), Math.toIntExact(count));
  }

  private static void writeEntry(final com.fasterxml.jackson.core.JsonGenerator g, final InventoryEntry e)
      throws java.io.IOException {
    g.writeStartObject();
    g.writeStringField("objectKind", e.objectKind().wire());
    g.writeStringField("id", e.id());
    RecordJson.u64(g, "objectGeneration", e.objectGeneration());
    RecordJson.u64(g, "ownerFence", e.ownerFence());
    g.writeStringField("policy", e.policy().wire());
    g.writeEndObject();
  }

  /**
   * The digest of entries already in inventory order.
   *
   * @param sorted the entries in {@link InventoryEntry#ORDER}.
   * @return 64 lowercase hex characters.
   */
  static String digest(final List<InventoryEntry> sorted) {
    final ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (InventoryEntry e : sorted) {
      all.writeBytes(RecordJson.write(g -> writeEntry(g, e)));
      all.write('\n');
    }
    return Sha256.hex(all.toByteArray());
  }

  /**
   * Stores every chunk, packing several into one batch while it stays within the batch limits. Chunks are
   * content-addressed, so writing one that exists rewrites the same bytes. Blocks; virtual threads only.
   *
   * @param store the Location Store.
   * @param timeout the longest wait of each store call.
   * @throws SpotkitException.Unavailable when the store fails or does not answer in time.
   */
  public void write(final LocationStore store, final Duration timeout) {
    final List<Mutation> batch = new ArrayList<>();
    long bytes = 0;
    for (Chunk c : chunks) {
      final String key = LocationKeys.aggregateInventory(spotId, c.sha256Hex()).preimage();
      final long size = c.bytes().size() + key.length() * 3L;
      if (!batch.isEmpty() && (bytes + size > StoreLimits.MAX_BATCH_BYTES || batch.size() >= 512)) {
        put(store, batch, timeout);
        batch.clear();
        bytes = 0;
      }
      batch.add(Mutation.Put.of(key, c.bytes()));
      bytes += size;
    }
    if (!batch.isEmpty()) {
      put(store, batch, timeout);
    }
  }

  private void put(final LocationStore store, final List<Mutation> batch, final Duration timeout) {
    final WriteResult r = StoreCalls.await(store.write(WriteBatch.of(List.of(), batch)), timeout,
        "write of " + batch.size() + " inventory chunks of Spot '" + spotId + "'");
    if (!(r instanceof WriteResult.Applied)) {
      throw new SpotkitException.Unavailable("unconditional write of inventory chunks of Spot '" + spotId
          + "' answered " + r);
    }
  }

  /**
   * Deletes chunks by hash, best effort (an abandoned or replaced tree); never throws.
   *
   * @param store the Location Store.
   * @param spotId the aggregate's SpotId.
   * @param sha256Hexes the chunks.
   * @param timeout the longest wait of each store call.
   */
  public static void delete(final LocationStore store, final String spotId, final Collection<String> sha256Hexes,
      final Duration timeout) {
    final List<Mutation> batch = new ArrayList<>();
    for (String h : sha256Hexes) {
      batch.add(new Mutation.Delete(LocationKeys.aggregateInventory(spotId, h).preimage()));
      if (batch.size() == 512) {
        deleteQuietly(store, batch, timeout);
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      deleteQuietly(store, batch, timeout);
    }
  }

  private static void deleteQuietly(final LocationStore store, final List<Mutation> batch, final Duration timeout) {
    try {
      StoreCalls.await(store.write(WriteBatch.of(List.of(), batch)), timeout, "delete of inventory chunks");
    } catch (RuntimeException e) {
      // best effort: an unreferenced chunk changes no answer; it is only space
    }
  }

  /**
   * The hashes of every chunk reachable from {@code root} (the root, its index chunks and leaves), without checking
   * counts or digest. Blocks; virtual threads only.
   *
   * @param store the Location Store.
   * @param spotId the aggregate's SpotId.
   * @param root the root chunk's SHA-256.
   * @param timeout the longest wait of each store call.
   * @return the hashes found; a missing chunk ends its branch.
   * @throws SpotkitException.Unavailable when the store fails or does not answer in time.
   */
  public static java.util.Set<String> reachable(final LocationStore store, final String spotId, final String root,
      final Duration timeout) {
    final java.util.Set<String> out = new java.util.LinkedHashSet<>();
    final java.util.ArrayDeque<String[]> todo = new java.util.ArrayDeque<>();
    todo.add(new String[] {root, "0"});
    while (!todo.isEmpty()) {
      final String[] next = todo.poll();
      final int depth = Integer.parseInt(next[1]);
      if (depth > MAX_DEPTH || !out.add(next[0])) {
        continue;
      }
      final ReadResult r = StoreCalls.await(store.read(LocationKeys.aggregateInventory(spotId, next[0]).preimage()),
          timeout, "read of inventory chunk " + next[0] + " of Spot '" + spotId + "'");
      if (!(r instanceof ReadResult.Found found)) {
        continue;
      }
      RecordJson.read(NAME, found.value().toByteArray(), n -> {
        if (n.string("kind").equals("index")) {
          for (RecordJson.Node c : n.array("children")) {
            todo.add(new String[] {c.string("chunk"), Integer.toString(depth + 1)});
          }
        }
        return null;
      });
    }
    return out;
  }

  /**
   * Best effort, never throws: deletes the chunks of the tree under {@code oldRoot} that the tree under
   * {@code newRoot} does not share (a replaced inventory takes no space once a move committed a new one).
   *
   * @param store the Location Store.
   * @param spotId the aggregate's SpotId.
   * @param oldRoot the replaced inventory's root.
   * @param newRoot the inventory the aggregate names now.
   * @param timeout the longest wait of each store call.
   * @return how many chunks were deleted (0 on any failure).
   */
  public static int deleteReplaced(final LocationStore store, final String spotId, final String oldRoot,
      final String newRoot, final Duration timeout) {
    if (oldRoot.equals(newRoot)) {
      return 0;
    }
    try {
      final java.util.Set<String> old = reachable(store, spotId, oldRoot, timeout);
      old.removeAll(reachable(store, spotId, newRoot, timeout));
      delete(store, spotId, old, timeout);
      return old.size();
    } catch (RuntimeException e) {
      return 0;
    }
  }

  /** The hashes of every chunk of this tree. */
  public List<String> hashes() {
    return chunks.stream().map(Chunk::sha256Hex).toList();
  }

  /**
   * Reads the tree under {@code root} and checks it against the aggregate authority: every chunk's bytes hash to its
   * key, each index's counts add up, the entry count is {@code count}, the digest is {@code digest}, and the entries
   * are in inventory order. Blocks; virtual threads only.
   *
   * @param store the Location Store.
   * @param spotId the aggregate's SpotId.
   * @param root the root chunk's SHA-256.
   * @param count the entry count the authority names.
   * @param digest the digest the authority names.
   * @param timeout the longest wait of each store call.
   * @return the entries, in inventory order.
   * @throws SpotkitException.DataLost when a chunk is missing, changed, or the tree does not match count or digest.
   * @throws SpotkitException.Unavailable when the store fails or does not answer in time.
   */
  public static List<InventoryEntry> read(final LocationStore store, final String spotId, final String root,
      final int count, final String digest, final Duration timeout) {
    final List<InventoryEntry> out = new ArrayList<>(count);
    readChunk(store, spotId, root, 0, out, timeout);
    if (out.size() != count) {
      throw lost(spotId, root, "holds " + out.size() + " entries but the aggregate authority names " + count);
    }
    for (int i = 1; i < out.size(); i++) {
      if (InventoryEntry.ORDER.compare(out.get(i - 1), out.get(i)) >= 0) {
        throw lost(spotId, root, "is not in inventory order at entry " + i);
      }
    }
    final String actual = digest(out);
    if (!actual.equals(digest)) {
      throw lost(spotId, root, "has digest " + actual + " but the aggregate authority names " + digest);
    }
    return out;
  }

  private static int readChunk(final LocationStore store, final String spotId, final String hash, final int depth,
      final List<InventoryEntry> out, final Duration timeout) {
    if (depth > MAX_DEPTH) {
      throw lost(spotId, hash, "is deeper than " + MAX_DEPTH + " index levels");
    }
    final ReadResult r = StoreCalls.await(store.read(LocationKeys.aggregateInventory(spotId, hash).preimage()),
        timeout, "read of inventory chunk " + hash + " of Spot '" + spotId + "'");
    if (!(r instanceof ReadResult.Found found)) {
      throw lost(spotId, hash, "is missing");
    }
    final byte[] bytes = found.value().toByteArray();
    if (!Sha256.hex(bytes).equals(hash)) {
      throw lost(spotId, hash, "does not hash to its key (changed)");
    }
    if (bytes.length > MAX_CHUNK_BYTES) {
      throw lost(spotId, hash, "is " + bytes.length + " bytes, over " + MAX_CHUNK_BYTES);
    }
    final int before = out.size();
    final List<String[]> children = new ArrayList<>();
    final long declared = RecordJson.read(NAME, bytes, n -> {
      final String kind = n.string("kind");
      if (kind.equals("leaf")) {
        final List<RecordJson.Node> entries = n.array("entries");
        if (entries.size() > MAX_LEAF_ENTRIES) {
          throw n.malformed("entries", "has " + entries.size() + " entries, over " + MAX_LEAF_ENTRIES);
        }
        for (RecordJson.Node e : entries) {
          out.add(new InventoryEntry(e.enumValue("objectKind", PlacementKind.class), e.string("id"),
              e.u64("objectGeneration", 1), e.u64("ownerFence", 1),
              e.enumValue("policy", MeshNodeDescriptorRecord.Policy.class)));
        }
        return -1L;
      }
      if (!kind.equals("index")) {
        throw n.malformed("kind", "'" + kind + "' is neither leaf nor index");
      }
      final List<RecordJson.Node> refs = n.array("children");
      if (refs.isEmpty() || refs.size() > MAX_INDEX_CHILDREN) {
        throw n.malformed("children", "has " + refs.size() + " children; 1.." + MAX_INDEX_CHILDREN);
      }
      for (RecordJson.Node c : refs) {
        children.add(new String[] {c.string("chunk"), Long.toString(c.u64("count", 1))});
      }
      return n.u64("count", 1);
    });
    long sum = 0;
    for (String[] child : children) {
      final int got = readChunk(store, spotId, child[0], depth + 1, out, timeout);
      if (got != Long.parseLong(child[1])) {
        throw lost(spotId, child[0], "holds " + got + " entries but its index names " + child[1]);
      }
      sum += got;
    }
    if (declared >= 0 && sum != declared) {
      throw lost(spotId, hash, "names " + declared + " entries but its children hold " + sum);
    }
    return out.size() - before;
  }

  private static SpotkitException.DataLost lost(final String spotId, final String hash, final String why) {
    return new SpotkitException.DataLost("inventory chunk " + hash + " of the aggregate of Spot '" + spotId + "' "
        + why);
  }
}
