/** The routes that run the model on a session and answer when done: a turn, a compaction. */
import { retryAfter } from '../errors.js';
import { compactBody, messageBody, parse } from '../api/request-schemas.js';
import type { Context } from 'hono';
import type { ApiApp, AppEnv } from '../http/app-env.js';
import type { TurnOutcome } from '../services/turn-service.js';
import { route } from '../http/route.js';
import { pathSessionId, readJson } from './read-request.js';
import type { RouteDeps } from './route-deps.js';
import { stepFailure, turnJson } from './turn-json.js';
import type { CompactionJson } from '../api/response-schemas.js';

export function turnRoutes(app: ApiApp, { turns, limits, idempotent }: RouteDeps): void {
  route(app, 'runTurn', async (c) => {
    const id = pathSessionId(c);
    const body = parse('body', messageBody, await readJson(c, limits.bodyLimitBytes));
    return idempotent(c, body, async () => {
      const deadline = AbortSignal.timeout(limits.deadlineMs);
      const outcome = await turns.turn(c.get('owner'), id, body.text, {
        signal: body.on_disconnect === 'abort' ? AbortSignal.any([deadline, c.req.raw.signal]) : deadline,
        deadlineMs: limits.deadlineMs,
        ...(body.parent_id === undefined ? {} : { parentId: body.parent_id }),
      });
      return answerTurn(c, outcome, deadline);
    });
  });

  route(app, 'compactSession', async (c) => {
    const id = pathSessionId(c);
    const { instructions, on_disconnect: onDisconnect } = parse('body', compactBody, await readJson(c, limits.bodyLimitBytes));
    const deadline = AbortSignal.timeout(limits.deadlineMs);
    const result = await turns.compact(c.get('owner'), id, instructions, {
      signal: onDisconnect === 'abort' ? AbortSignal.any([deadline, c.req.raw.signal]) : deadline,
      deadlineMs: limits.deadlineMs,
    });
    c.set('usage', result.usage);
    return c.json({ summary: result.summary, usage: result.usage } satisfies CompactionJson);
  });
}

/** The answer of a turn run within the request: 200, or the failure's status with what the turn stored. */
export function answerTurn(c: Context<AppEnv>, outcome: TurnOutcome, deadline: AbortSignal): Response {
  const summary = turnJson(outcome, deadline);
  const failure = stepFailure(outcome.step);
  c.set('turn', true);
  c.set('usage', outcome.step.usage);
  if (failure) c.set('errorCode', failure.body.error.code);
  return failure ? c.json({ ...failure.body, ...summary }, failure.status, retryAfter(failure)) : c.json(summary);
}
