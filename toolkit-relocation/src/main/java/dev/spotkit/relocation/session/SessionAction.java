package dev.spotkit.relocation.session;

import dev.spotkit.relocation.Action;
import dev.spotkit.relocation.Message;
import dev.spotkit.relocation.wire.ActorRoute;
import dev.spotkit.relocation.wire.Fields;
import dev.spotkit.relocation.wire.SessionRelocationFrame;
import java.util.List;

/**
 * What a {@link SessionBarrier} asks its driver to do, in list order, within the one serial step that produced
 * the list (FACTS.md "Sessions": switch route, submit held, release seal in one step). The barrier performs no
 * I/O. Every switch over actions is exhaustive (sealed). Records are immutable; any thread.
 */
public sealed interface SessionAction {

  /**
   * Send command 43 sessionRelocationSealed to the sender of the seal (the source). Sent again, unchanged, for an
   * identical duplicate seal.
   *
   * @param frame the reply; encode with {@link dev.spotkit.relocation.wire.SessionRelocationCodec}.
   */
  record SendSealed(SessionRelocationFrame.Sealed frame) implements SessionAction {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException when {@code frame} is null.
     */
    public SendSealed {
      Fields.present("frame", frame);
    }
  }

  /**
   * Submit one session message to the bound Actor on {@code route}: the source route while open or after an
   * abort, the target route after a commit. Messages of one step are to be submitted in list order, before any
   * message of a later step.
   *
   * @param route the route to submit on.
   * @param message the work, unchanged.
   */
  record ForwardToActor(ActorRoute route, Message message) implements SessionAction {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException when a part is null.
     */
    public ForwardToActor {
      Fields.present("route", route);
      Fields.present("message", message);
    }
  }

  /**
   * Switch this binding's route, and the bound-session accessor's current Actor location snapshot, from
   * {@code from} to {@code to}. ActorId and ObjectGeneration stay (MEM-39); other bindings of the same session do
   * not change (spec 001 section 4.1).
   *
   * @param from the sealed source route.
   * @param to the committed target route.
   */
  record SwitchRoute(ActorRoute from, ActorRoute to) implements SessionAction {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException when a part is null.
     */
    public SwitchRoute {
      Fields.present("from", from);
      Fields.present("to", to);
    }
  }

  /**
   * Close the physical session and clean its binding (spec 001 sections 9 and 12). {@code dropped} lists, in
   * arrival order, the messages that will never be submitted; the driver fails each request among them with
   * {@code Unavailable}. Closing an already closed session is a no-op for the driver: a message delivered after
   * the close comes back in a further {@code CloseSession} naming only it.
   *
   * @param reason why.
   * @param dropped messages not submitted, arrival order; copied.
   */
  record CloseSession(CloseReason reason, List<Message> dropped) implements SessionAction {
    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException when a part is null.
     * @throws NullPointerException when {@code dropped} holds a null.
     */
    public CloseSession {
      Fields.present("reason", reason);
      dropped = List.copyOf(Fields.present("dropped", dropped));
    }
  }

  /**
   * Record a log line with a stable code; a log changes nothing else.
   *
   * @param level warning (late, stale or duplicate input) or error (a peer's protocol violation).
   * @param code one of the {@code SessionBarrier} code constants, e.g. {@code late_session_route_update}.
   * @param detail human text naming the values involved.
   */
  record Log(Action.Level level, String code, String detail) implements SessionAction {
    /**
     * Validates.
     *
     * @throws IllegalArgumentException when a part is null.
     */
    public Log {
      Fields.present("level", level);
      Fields.present("code", code);
      Fields.present("detail", detail);
    }
  }

  /** Why a session was closed. */
  enum CloseReason {
    /**
     * No matching command 44 arrived within SessionRelocationSealTimeout of the seal's install (spec 001 section
     * 9, REL-28); held messages are dropped.
     */
    SEAL_TIMEOUT
  }
}
