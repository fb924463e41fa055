/**
 * `POST /sessions/{id}/messages/stream`: a turn as server-sent events — `message` for each
 * message as it is persisted (the prompt first), `text-delta` as the model writes, and one
 * `end`. Served by the streaming function URL for turns longer than API Gateway's 30 s.
 */
import { streamSSE } from 'hono/streaming';
import { toHttpError } from '../errors.js';
import { messageBody, parse } from '../schemas.js';
import { pathSessionId, readJson, type App, type RouteDeps } from '../http.js';
import { endFailure, stepFailure, turnJson } from './turn-json.js';

export function streamRoutes(app: App, { sessions, limits, report }: RouteDeps): void {
  app.post('/sessions/:id/messages/stream', async (c) => {
    const id = pathSessionId(c);
    const { text } = parse('body', messageBody, await readJson(c, limits.bodyLimitBytes));
    // Taken before the stream starts, so that 404 and 409 are real statuses.
    const lock = await sessions.lock(c.get('owner'), id, limits.streamLeaseMs);
    c.set('turn', true);
    let ended!: () => void;
    c.set('streamed', new Promise<void>((resolve) => (ended = resolve)));
    return streamSSE(c, async (stream) => {
      const deadline = AbortSignal.timeout(limits.streamDeadlineMs);
      const disconnected = new AbortController();
      stream.onAbort(() => disconnected.abort(new Error('the client disconnected')));
      let writes = Promise.resolve();
      const send = (event: string, data: object): void => {
        writes = writes.then(() => stream.writeSSE({ event, data: JSON.stringify(data) })).catch(() => {});
      };
      try {
        const outcome = await sessions.turnLocked(lock, text, {
          signal: AbortSignal.any([deadline, disconnected.signal]),
          receiver: (event) => {
            if (event.type === 'text-delta') send('text-delta', { delta: event.delta });
            if (event.type === 'entries-persisted') {
              for (const record of event.records) if (record.type === 'message') send('message', { message: record.message });
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
        await lock.release();
        await writes;
        ended();
      }
    });
  });
}
