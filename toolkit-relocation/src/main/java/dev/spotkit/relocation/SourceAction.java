package dev.spotkit.relocation;

/**
 * What a {@link SourceUnit} asks its driver to do (spec 001 sections 4.1-4.4, 9, 10): send a frame, pause, capture,
 * dispatch or fail a message, restore and reopen the source queue, release the payload, tell the Session owner,
 * log. Sealed: the source driver's switch over it is exhaustive without a {@code default} branch.
 */
public sealed interface SourceAction extends Action permits
    Action.CapturePayload, Action.DispatchLocal, Action.FailMessage, Action.Log, Action.PauseDispatch,
    Action.ReleasePayload, Action.ReopenDispatch, Action.RestoreSourceQueue, Action.Send, Action.SendToSessionOwner {
}
