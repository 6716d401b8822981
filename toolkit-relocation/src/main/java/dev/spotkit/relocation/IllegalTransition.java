package dev.spotkit.relocation;

import java.util.Set;

/**
 * Thrown when an event asks a unit for an edge the {@link Transitions} table does not have. Nothing in the unit
 * has changed when this is thrown; the driver decides what to do with the unit (a caller defect, not a peer
 * fault: peer faults such as a late cutover only log a warning).
 */
public final class IllegalTransition extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final Stage stage;
  private final Trigger trigger;

  /**
   * Creates the error.
   *
   * @param stage the unit's stage when the trigger arrived.
   * @param trigger the trigger that has no edge from {@code stage}.
   * @param allowed the triggers {@code stage} does accept, for the message.
   */
  public IllegalTransition(final Stage stage, final Trigger trigger, final Set<Trigger> allowed) {
    super("no transition for trigger " + trigger + " in stage " + stage.specName() + "; allowed triggers: "
        + allowed + " (spec 001 section 11)");
    this.stage = stage;
    this.trigger = trigger;
  }

  /**
   * The stage the unit stayed in.
   *
   * @return the unchanged stage.
   */
  public Stage stage() {
    return stage;
  }

  /**
   * The refused trigger.
   *
   * @return the trigger.
   */
  public Trigger trigger() {
    return trigger;
  }
}
