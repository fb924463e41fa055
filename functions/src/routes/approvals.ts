/**
 * Deciding the tool calls a paused turn waits on, which resumes it: `POST
 * /sessions/{id}/approvals` runs the resumed turn and answers when done, as `POST
 * /sessions/{id}/messages` does; `…/approvals/stream` streams it, as `…/messages/stream`
 * does. The decisions are stored (the lease taken with them) before any approved call runs.
 */
import type { ApprovalDecision } from '@panto/core/agent-kit';
import { approvalsBody, parse } from '../api/request-schemas.js';
import type { ApiApp } from '../http/app-env.js';
import { route } from '../http/route.js';
import { pathSessionId, readJson } from './read-request.js';
import type { RouteDeps } from './route-deps.js';
import { streamStartedTurn } from './stream.js';
import { answerTurn } from './turns.js';

export function approvalRoutes(app: ApiApp, deps: RouteDeps): void {
  const { turns, limits, idempotent } = deps;
  route(app, 'decideApprovals', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', approvalsBody, await readJson(c, limits.bodyLimitBytes));
    return idempotent(c, body, async () => {
      const deadline = AbortSignal.timeout(limits.deadlineMs);
      const outcome = await turns.decide(c.get('owner'), id, decisionsOf(body), {
        signal: body.on_disconnect === 'abort' ? AbortSignal.any([deadline, c.req.raw.signal]) : deadline,
        deadlineMs: limits.deadlineMs,
      });
      return answerTurn(c, outcome, deadline);
    });
  });

  route(app, 'streamApprovals', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', approvalsBody, await readJson(c, limits.bodyLimitBytes));
    // Stored before the stream starts, so that 404 and 409 (not pending, busy) are real statuses.
    const started = await turns.start(c.get('owner'), id, { decisions: decisionsOf(body) }, { deadlineMs: limits.streamDeadlineMs });
    return streamStartedTurn(c, deps, started, { id, onDisconnect: body.on_disconnect });
  });
}

/** The body's decisions as the agent takes them (a `reason` left out is absent, not undefined). */
function decisionsOf(body: { decisions: readonly { tool_call_id: string; decision: 'approve' | 'deny'; reason?: string | undefined }[] }): ApprovalDecision[] {
  return body.decisions.map(({ tool_call_id, decision, reason }) => ({ tool_call_id, decision, ...(reason === undefined ? {} : { reason }) }));
}
