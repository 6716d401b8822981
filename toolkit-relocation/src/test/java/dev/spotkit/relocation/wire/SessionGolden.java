package dev.spotkit.relocation.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The session-relocation-barrier-v1.json fixture as Spotkit values. Every expected frame is built from the
 * fixture's {@code identity} block (never from the hex), so a golden test proves the reading of each byte group;
 * a receiver case's {@code retryMutation} / {@code routeMutation} ({@code key=value}) is applied to that block
 * before the frame is built. Public for the session tests.
 */
public final class SessionGolden {

  /** The fixture file name. */
  public static final String FILE = "session-relocation-barrier-v1.json";

  private SessionGolden() {
  }

  /**
   * The whole fixture.
   *
   * @return its JSON tree.
   */
  public static JsonNode fixture() {
    return Golden.load(FILE);
  }

  /**
   * The identity block, optionally mutated.
   *
   * @param mutation {@code key=value} or null.
   * @return a copy of {@code identity} with the mutation applied.
   */
  public static JsonNode identity(final String mutation) {
    final ObjectNode id = fixture().get("identity").deepCopy();
    if (mutation != null) {
      final String[] kv = mutation.split("=", 2);
      if (!id.has(kv[0])) {
        throw new IllegalArgumentException("mutation " + mutation + " names no identity field");
      }
      id.put(kv[0], kv[1]);
    }
    return id;
  }

  /**
   * A canonical vector by name.
   *
   * @param name e.g. {@code sessionRelocationSeal}.
   * @return the vector object.
   */
  public static JsonNode vector(final String name) {
    for (JsonNode v : fixture().get("canonical")) {
      if (v.get("name").asText().equals(name)) {
        return v;
      }
    }
    throw new IllegalArgumentException("no vector " + name);
  }

  /**
   * The frame a canonical vector holds, built from the (mutated) identity.
   *
   * @param name a canonical vector name.
   * @param mutation {@code key=value} or null.
   * @return the frame.
   */
  public static SessionRelocationFrame frame(final String name, final String mutation) {
    final JsonNode id = identity(mutation);
    return switch (name) {
      case "sessionRelocationSeal" -> seal(id);
      case "sessionRelocationSealed" -> SessionRelocationFrame.Sealed.answering(seal(id));
      case "sessionRelocationRouteCommit" -> new SessionRelocationFrame.Route(relocationId(id), fence(id),
          Role.TARGET, binding(id), new SessionRouteAction.Commit(gen(id, "sourceAuthorityOwnerGeneration"),
          new ActorRoute(rid(id, "targetNodeRid"), gen(id, "targetNodeGeneration"),
              gen(id, "targetAuthorityOwnerGeneration"), gen(id, "targetOwnerLeaseGeneration"))));
      case "sessionRelocationRouteAbort" -> new SessionRelocationFrame.Route(relocationId(id), fence(id),
          Role.SOURCE, binding(id), new SessionRouteAction.Abort(gen(id, "sourceAuthorityOwnerGeneration")));
      default -> throw new IllegalArgumentException("no vector " + name);
    };
  }

  /**
   * The frame a canonical vector holds, unmutated.
   *
   * @param name a canonical vector name.
   * @return the frame.
   */
  public static SessionRelocationFrame frame(final String name) {
    return frame(name, null);
  }

  /**
   * The binding every vector names.
   *
   * @return the fixture's binding.
   */
  public static SessionBinding binding() {
    return binding(identity(null));
  }

  /**
   * The source route the binding has before the move (the seal's current route).
   *
   * @return the fixture's source route.
   */
  public static ActorRoute sourceRoute() {
    return sourceRoute(identity(null));
  }

  private static SessionRelocationFrame.Seal seal(final JsonNode id) {
    return new SessionRelocationFrame.Seal(relocationId(id), fence(id), Role.SOURCE, binding(id), sourceRoute(id));
  }

  private static ActorRoute sourceRoute(final JsonNode id) {
    return new ActorRoute(rid(id, "sourceNodeRid"), gen(id, "sourceNodeGeneration"),
        gen(id, "sourceAuthorityOwnerGeneration"), gen(id, "sourceOwnerLeaseGeneration"));
  }

  private static RelocationId relocationId(final JsonNode id) {
    return new RelocationId(gen(id, "relocationHigh"), gen(id, "relocationLow"));
  }

  private static CoordinatorFence fence(final JsonNode id) {
    return new CoordinatorFence(id.get("coordinatorOwnerId").asText(), gen(id, "coordinatorLeaseGeneration"),
        rid(id, "coordinatorNodeRid"), gen(id, "coordinatorNodeGeneration"),
        id.get("expectedAuthorityStoreVersion").asText());
  }

  private static SessionBinding binding(final JsonNode id) {
    return new SessionBinding(new SessionOwner(rid(id, "sessionOwnerNodeRid"), gen(id, "sessionOwnerNodeGeneration"),
        id.get("sessionOwnerId").asText(), gen(id, "sessionOwnerLeaseGeneration")), rid(id, "sessionRid"),
        gen(id, "bindingGeneration"), id.get("actorId").asText(), gen(id, "objectGeneration"));
  }

  private static long gen(final JsonNode id, final String key) {
    return Long.parseUnsignedLong(id.get(key).asText());
  }

  private static Rid rid(final JsonNode id, final String key) {
    return Rid.ofUtf8(id.get(key).asText());
  }
}
