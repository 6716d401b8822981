package dev.spotkit.core.internal.join;

import dev.spotkit.core.Deadline;
import dev.spotkit.core.OperationId;

/**
 * A join registered by defer(): the immutable request copy and the absolute deadline fixed at defer().
 *
 * @param operationId the join's id.
 * @param spotId the target User Spot, or null for JoinEntrySpot.
 * @param request the decoded copy of the request.
 * @param deadline fixed at defer().
 */
public record PendingJoin(OperationId operationId, String spotId, Object request, Deadline deadline) {
}
