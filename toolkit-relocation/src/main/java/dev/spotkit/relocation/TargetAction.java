package dev.spotkit.relocation;

/**
 * What a {@link TargetUnit} (through {@link TargetUnits}) asks its driver to do (spec 001 sections 4.3-4.6, 6, 9):
 * register the temporary queue, run the Restore, send a reply, run the CAS or re-read the store, merge the backlog
 * and open dispatch, remove staging, dispatch or fail a message, tell the Session owner, log. Sealed: the target
 * driver's switch over it is exhaustive without a {@code default} branch.
 */
public sealed interface TargetAction extends Action permits
    Action.DispatchLocal, Action.FailMessage, Action.Log, Action.MergeBacklog, Action.OpenDispatch,
    Action.ReReadStore, Action.RegisterTemporaryQueue, Action.RemoveStaging, Action.RunCas, Action.RunRestore,
    Action.Send, Action.SendToSessionOwner {
}
