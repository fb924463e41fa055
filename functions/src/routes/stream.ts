/**
 * `POST /sessions/{id}/messages/stream`: a turn as server-sent events — `message` for each
 * message as it is persisted (the prompt first), `text-delta` as the model writes, and one
 * `end`. Served by the streaming function URL for turns longer than API Gateway's 30 s.
 * A client that goes away does not stop the turn unless it asked so (`on_disconnect`):
 * it can come back and follow it (`GET /sessions/{id}/events`, routes/events.ts).
 * `POST /sessions/{id}/approvals/stream` (routes/approvals.ts) streams a resumed turn the same way.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { toHttpError } from '../errors.js';
import { messageBody, parse } from '../api/request-schemas.js';
import type { ApiApp, AppEnv } from '../http/app-env.js';
import { route } from '../http/route.js';
import type { StartedTurn } from '../services/turn-start.js';
import { pathSessionId, readJson } from './read-request.js';
import type { RouteDeps } from './route-deps.js';
import { approvalJson, messageJson } from './session-json.js';
import { eventSender } from './sse.js';
import { endFailure, stepFailure, turnJson } from './turn-json.js';

export function streamRoutes(app: ApiApp, deps: RouteDeps): void {
  route(app, 'streamTurn', async (c) => {
    const id = pathSessionId(c);
    const { text, on_disconnect: onDisconnect, parent_id: parentId } = parse('body', messageBody, await readJson(c, deps.limits.bodyLimitBytes));
    // The prompt is stored (the lease taken with it) before the stream starts, so that 404,
    // 409 and a 400 for a parent_id the session does not hold are real statuses.
    const started = await deps.turns.start(c.get('owner'), id, text, {
      deadlineMs: deps.limits.streamDeadlineMs,
      ...(parentId === undefined ? {} : { parentId }),
    });
    return streamStartedTurn(c, deps, started, { id, onDisconnect });
  });
}

/**
 * Streams a started turn (its opening stored, its lease held) to the client and releases it
 * at the end: first what opened it — the prompt's `message`, or the `approval` entry and the
 * denials' `message`s of a resumed turn —, then `text-delta` and `message` as the step goes,
 * and one `end`.
 */
export function streamStartedTurn(
  c: Context<AppEnv>,
  { turns, limits, report }: RouteDeps,
  started: StartedTurn,
  { id, onDisconnect }: { id: string; onDisconnect: 'continue' | 'abort' },
): Response {
  c.set('turn', true);
  let ended!: () => void;
  c.set('streamed', new Promise<void>((resolve) => (ended = resolve)));
  return streamSSE(c, async (stream) => {
    const deadline = AbortSignal.timeout(limits.streamDeadlineMs);
    const disconnected = new AbortController();
    // Lambda response streaming never reports a disconnect; a local server does (and a client
    // that stalls past the limit is disconnected). Either way the turn runs on unless the
    // client asked otherwise; writes to nobody are dropped.
    const sender = eventSender(c, stream, {
      stallMs: limits.streamStallMs,
      keepAliveMs: limits.streamKeepAliveMs,
      ...(onDisconnect === 'abort' ? { onGone: () => disconnected.abort(new Error('the client disconnected')) } : {}),
    });
    let writes = Promise.resolve();
    const send = (event: string, data: object): void => {
      writes = writes.then(() => sender.send(event, data)).then(() => undefined);
    };
    try {
      // What the opening stored: the prompt, or the decisions and the denials' results.
      if (started.opened.type === 'approval') send('approval', { approval: approvalJson(started.opened) });
      for (const record of started.records) send('message', { message: messageJson(record) });
      const outcome = await turns.run(started, {
        signal: AbortSignal.any([deadline, disconnected.signal]),
        receiver: (event) => {
          if (event.type === 'text-delta') send('text-delta', { delta: event.delta });
          if (event.type === 'entries-persisted') {
            for (const record of event.records) if (record.type === 'message') send('message', { message: messageJson(record) });
          }
        },
      });
      const { messages: _messages, approval: _approval, ...end } = turnJson(outcome, deadline);
      const failure = stepFailure(outcome.step);
      c.set('usage', outcome.step.usage);
      if (failure) c.set('errorCode', failure.body.error.code);
      send('end', failure ? { ...end, ...endFailure(failure) } : end);
    } catch (error) {
      const failure = toHttpError(error);
      c.set('errorCode', failure.body.error.code);
      report(failure, `streamed turn on ${id}`, error);
      send('end', { incomplete: true, ...endFailure(failure) });
    } finally {
      await started.lock.release();
      await writes;
      sender.finish();
      ended();
    }
  });
}
