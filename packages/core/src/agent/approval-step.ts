/**
 * The agent's side of tool approvals: which calls of a message ask (their tool has
 * `approval`), the message as committed when the step pauses on them, and the records of a
 * decision. See `Agent.decideApprovals`.
 */
import { canonicalDecision, denialResult, type ApprovalDecision, type PendingApproval } from '../approvals.js';
import type { AssistantMessage, ToolCallBlock } from '../messages.js';
import type { DiskApprovalRecord, DiskMessageRecord } from '../session/records.js';
import type { ToolRegistry } from '../tool.js';

/** The calls of `calls` whose tool asks for approval, in order; a call refused for too deep an input never asks (it is not run). */
export function askingCalls(tools: ToolRegistry, calls: readonly ToolCallBlock[], refused: ReadonlySet<string>): PendingApproval[] {
  return calls.flatMap((call) => {
    const approval = refused.has(call.id) ? undefined : tools.get(call.name)?.approval;
    return approval === undefined ? [] : [{ toolCall: call, reason: approval.reason }];
  });
}

/** `message` as the step commits it when it pauses: stop reason `awaiting_approval`, the asking calls listed with their reasons. */
export function pausedMessage(message: AssistantMessage, asking: readonly PendingApproval[]): AssistantMessage {
  return {
    ...message,
    stop_reason: 'awaiting_approval',
    // One request per call id (a model may give two calls one id: both wait, and one decision decides both).
    approval_requests: [...new Map(asking.map((approval) => [approval.toolCall.id, approval.reason]))].map(([id, reason]) => ({ tool_call_id: id, reason })),
  };
}

/** The batch a decision writes — the approval entry, then each denied call's result — and the approved calls, to run next. */
export function decisionRecords(
  pending: readonly PendingApproval[],
  decisions: readonly ApprovalDecision[],
  entry: () => { id: string; timestamp: string },
): { approval: DiskApprovalRecord; denials: DiskMessageRecord[]; approved: ToolCallBlock[] } {
  const approval: DiskApprovalRecord = { type: 'approval', ...entry(), decisions: decisions.map(canonicalDecision) };
  const byId = new Map(decisions.map((decision) => [decision.tool_call_id, decision]));
  const denials: DiskMessageRecord[] = [];
  const approved: ToolCallBlock[] = [];
  for (const { toolCall } of pending) {
    const decision = byId.get(toolCall.id);
    if (decision?.decision === 'approve') approved.push(toolCall);
    else denials.push({ type: 'message', ...entry(), message: denialResult(toolCall, decision?.reason) });
  }
  return { approval, denials, approved };
}
