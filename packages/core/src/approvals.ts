/**
 * Tool calls that wait for a person's decision: which calls of a conversation are pending,
 * what a decision is, and whether a set of decisions answers exactly the pending calls. The
 * agent pauses a step on them (`stop_reason: "awaiting_approval"`) and resumes it with
 * `agent.decideApprovals(…)`; see docs/overview.md#tool-approvals.
 */
import { ApprovalDecisionError } from './errors.js';
import { toolResultMessage, type Message, type ToolCallBlock, type ToolResultMessage } from './messages.js';

/** A person's answer to one pending call, as the log and the API carry it. */
export interface ApprovalDecision {
  tool_call_id: string;
  decision: 'approve' | 'deny';
  /** Why (a denial's reason is what the model is told). */
  reason?: string;
}

/** A call that waits for a decision: the call as the model made it, and why it asks. */
export interface PendingApproval {
  toolCall: ToolCallBlock;
  reason: string;
}

/** What the model sees of a denied call: an error result. */
export function denialResult(call: ToolCallBlock, reason: string | undefined): ToolResultMessage {
  const why = reason === undefined || reason.trim() === '' ? 'the user did not approve it' : reason;
  return toolResultMessage(call, `Tool call denied: ${why}. It was not run.`, true);
}

/**
 * The calls waiting for a decision at the end of `messages`: those the last assistant message
 * asked approval for (`stop_reason: "awaiting_approval"`) that have no result after it, in
 * the message's order — none unless that message and its results end the conversation.
 * `settled` are calls decided since (approved, not yet run): not pending any more.
 */
export function pendingApprovals(messages: readonly Message[], settled: ReadonlySet<string> = new Set()): PendingApproval[] {
  let at = messages.length - 1;
  while (at >= 0 && messages[at]!.role === 'tool_result') at--;
  const message = messages[at];
  if (message?.role !== 'assistant' || message.stop_reason !== 'awaiting_approval') return [];
  const answered = new Set<string>(settled);
  for (const result of messages.slice(at + 1)) if (result.role === 'tool_result') answered.add(result.tool_call_id);
  const asked = new Map((message.approval_requests ?? []).map((request) => [request.tool_call_id, request.reason]));
  // Every call block that asked, in the message's order: a model that gave two calls one id shows both (and a decision on the id decides both).
  return message.content.flatMap((block) => {
    const reason = block.type === 'tool_call' && !answered.has(block.id) ? asked.get(block.id) : undefined;
    return block.type === 'tool_call' && reason !== undefined ? [{ toolCall: block, reason }] : [];
  });
}

/**
 * The decisions in the order of the pending calls, when they decide each pending call once
 * and nothing else; `ApprovalDecisionError` otherwise (nothing pending, a call that is not
 * pending — unknown, or decided already —, a call decided twice, or one left undecided).
 */
export function orderedDecisions(pending: readonly PendingApproval[], decisions: readonly ApprovalDecision[]): ApprovalDecision[] {
  const pendingIds = [...new Set(pending.map((approval) => approval.toolCall.id))];
  if (pending.length === 0)
    throw new ApprovalDecisionError(
      'none_pending',
      decisions.map((decision) => decision.tool_call_id),
      pendingIds,
    );
  const byId = new Map<string, ApprovalDecision>();
  const twice: string[] = [];
  for (const decision of decisions) {
    if (byId.has(decision.tool_call_id)) twice.push(decision.tool_call_id);
    byId.set(decision.tool_call_id, decision);
  }
  const unknown = [...byId.keys()].filter((id) => !pendingIds.includes(id));
  if (unknown.length > 0) throw new ApprovalDecisionError('not_pending', unknown, pendingIds);
  if (twice.length > 0) throw new ApprovalDecisionError('duplicate', twice, pendingIds);
  const undecided = pendingIds.filter((id) => !byId.has(id));
  if (undecided.length > 0) throw new ApprovalDecisionError('undecided', undecided, pendingIds);
  return pendingIds.map((id) => canonicalDecision(byId.get(id)!));
}

/** A decision as the log writes it: its fields in their order, `reason` only when given. */
export function canonicalDecision(decision: ApprovalDecision): ApprovalDecision {
  const out: ApprovalDecision = { tool_call_id: decision.tool_call_id, decision: decision.decision };
  if (decision.reason !== undefined) out.reason = decision.reason;
  return out;
}
