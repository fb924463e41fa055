/**
 * The tool calls the session waits on (its turn paused on them): for each, the tool, why it
 * asks and its input, with Approve and Deny. The server takes every waiting call's decision at
 * once, so the decisions are sent when the last call is decided — at the first click when one
 * call waits. Shown after a reload too: the waiting calls are part of the session as read.
 */
import { useState } from 'preact/hooks';
import type { ApprovalDecision, PendingApproval } from '../api/wire.js';

export interface ApprovalPanelProps {
  pending: readonly PendingApproval[];
  /** A turn runs or a decision is on its way: nothing may be decided now. */
  busy: boolean;
  /** Every waiting call decided: sends them (and the turn resumes). Must not throw. */
  onDecide(decisions: ApprovalDecision[]): void;
}

export function ApprovalPanel({ pending, busy, onDecide }: ApprovalPanelProps) {
  const [chosen, setChosen] = useState<ReadonlyMap<string, ApprovalDecision['decision']>>(new Map());
  const ids = [...new Set(pending.map((call) => call.tool_call_id))];
  const choose = (id: string, decision: ApprovalDecision['decision']): void => {
    const next = new Map(chosen).set(id, decision);
    setChosen(next);
    if (ids.every((pendingId) => next.has(pendingId))) onDecide(ids.map((pendingId) => ({ tool_call_id: pendingId, decision: next.get(pendingId)! })));
  };
  return (
    <section class="approvals" aria-label="Waiting for approval">
      <p class="approvals-head">
        {pending.length === 1
          ? 'The model wants to run a tool that needs your approval.'
          : `The model wants to run ${pending.length} tools that need your approval.`}
      </p>
      {pending.map((call, index) => {
        const decided = chosen.get(call.tool_call_id);
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a model may give two calls one id; their order never changes
          <article class="approval" key={`${call.tool_call_id}-${index}`} aria-label={`Approve ${call.tool}?`}>
            <div class="approval-tool">{call.tool}</div>
            <p class="approval-reason">Asks because {call.reason}.</p>
            <div class="tool-label">input</div>
            <pre>{JSON.stringify(call.input, null, 2)}</pre>
            <div class="approval-buttons">
              <button type="button" class="primary" disabled={busy || decided !== undefined} onClick={() => choose(call.tool_call_id, 'approve')}>
                Approve
              </button>
              <button type="button" class="danger" disabled={busy || decided !== undefined} onClick={() => choose(call.tool_call_id, 'deny')}>
                Deny
              </button>
              {decided !== undefined && <span class="approval-choice">{decided === 'approve' ? 'Approved' : 'Denied'}</span>}
            </div>
          </article>
        );
      })}
    </section>
  );
}
