package dev.spotkit.core.wire;

/**
 * Command numbers of framework frames (FACTS.md "Wire"; DESIGN.md "Nodes, transport and sessions"). This
 * package encodes and decodes {@link #REPLY}, {@link #USER_SPOT_CREATE}, {@link #USER_SPOT_CLOSE},
 * {@link #ACTOR_CREATE}, {@link #APPLICATION_MESSAGE}, {@link #ACTOR_DESTROY} and {@link #SESSION_PUSH}; the other
 * numbers are listed so that a dispatcher can name what it sees.
 */
public final class Commands {

  /** 20: the reply to a request, correlated by its correlation id. */
  public static final int REPLY = 20;
  /** 28: cross-node actor join. */
  public static final int ACTOR_JOIN = 28;
  /** 30: relocation ready (target's reply to 40). */
  public static final int RELOCATION_READY = 30;
  /** 31: one ingress-hold record relayed during relocation. */
  public static final int RELOCATION_DATA = 31;
  /** 34: relocation cutover (one-way). */
  public static final int RELOCATION_CUTOVER = 34;
  /** 39: Instance Spot message / cold activation. */
  public static final int INSTANCE_SPOT = 39;
  /** 40: relocation prepare (Restore request). */
  public static final int RELOCATION_PREPARE = 40;
  /** 42: session relocation seal. */
  public static final int SESSION_RELOCATION_SEAL = 42;
  /** 43: session relocation sealed. */
  public static final int SESSION_RELOCATION_SEALED = 43;
  /** 44: session relocation route (commit or abort). */
  public static final int SESSION_RELOCATION_ROUTE = 44;
  /** 47: remote User Spot create. */
  public static final int USER_SPOT_CREATE = 47;
  /** 48: remote User Spot close. */
  public static final int USER_SPOT_CLOSE = 48;
  /** 49: remote Actor create. */
  public static final int ACTOR_CREATE = 49;
  /** 50: Message Follow. */
  public static final int MESSAGE_FOLLOW = 50;
  /** 51: bound session replaced. */
  public static final int BOUND_SESSION_REPLACED = 51;
  /** 52: relocation state chunk. */
  public static final int RELOCATION_STATE = 52;
  /** 53: relocation failed. */
  public static final int RELOCATION_FAILED = 53;
  /**
   * 60: an application message or request to an Actor or Spot owned by the receiving node. Spotkit-defined:
   * the spec's files name no command for ordinary object messages (see {@link ApplicationMessageCodec}).
   */
  public static final int APPLICATION_MESSAGE = 60;
  /** 61: destroy an Actor on its owner node. Spotkit-defined (see {@link ActorDestroy}). */
  public static final int ACTOR_DESTROY = 61;
  /**
   * 62: a push (or close) from a relocated session-bound Actor to the node that holds its client session.
   * Spotkit-defined: commands 42/43/44 carry only the inbound route switch at the Session owner (spec 000
   * section 4.2 step 8); the spec's files name no command for the push path back (see {@link SessionPush}).
   */
  public static final int SESSION_PUSH = 62;

  private Commands() {
  }
}
