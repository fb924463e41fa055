/**
 * `POST /sessions/{id}/messages/stream`: a turn as server-sent events — `message` for each
 * message as it is persisted (the prompt first), `text-delta` as the model writes, and one
 * `end`. Served by the streaming function URL for turns longer than API Gateway's 30 s.
 * A client that goes away does not stop the turn unless it asked so (`on_disconnect`):
 * it can come back and follow it (`GET /sessions/{id}/events`, routes/events.ts).
 */
import { streamSSE } from 'hono/streaming';
import { toHttpError } from '../errors.js';
import { messageBody, parse } from '../api/request-schemas.js';
import type { ApiApp } from '../http/app-env.js';
import { route } from '../http/route.js';
import { pathSessionId, readJson } from './read-request.js';
import type { RouteDeps } from './route-deps.js';
import { messageJson } from './session-json.js';
import { eventSender } from './sse.js';
import { endFailure, stepFailure, turnJson } from './turn-json.js';

export function streamRoutes(app: ApiApp, { turns, limits, report }: RouteDeps): void {
  route(app, 'streamTurn', async (c) => {
    const id = pathSessionId(c);
    const { text, on_disconnect: onDisconnect, parent_id: parentId } = parse('body', messageBody, await readJson(c, limits.bodyLimitBytes));
    // The prompt is stored (the lease taken with it) before the stream starts, so that 404,
    // 409 and a 400 for a parent_id the session does not hold are real statuses.
    const started = await turns.start(c.get('owner'), id, text, { deadlineMs: limits.streamDeadlineMs, ...(parentId === undefined ? {} : { parentId }) });
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
        send('message', { message: messageJson(started.prompt) });
        const outcome = await turns.run(started, {
          signal: AbortSignal.any([deadline, disconnected.signal]),
          receiver: (event) => {
            if (event.type === 'text-delta') send('text-delta', { delta: event.delta });
            if (event.type === 'entries-persisted') {
              for (const record of event.records) if (record.type === 'message') send('message', { message: messageJson(record) });
            }
          },
        });
        const { messages: _messages, ...end } = turnJson(outcome, deadline);
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
  });
}
