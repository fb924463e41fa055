/**
 * Following a session's running turn from any connection, and stopping it:
 * `GET /sessions/{id}/events` streams the messages the turn persists, as server-sent events,
 * read from the store (another Lambda instance may be running the turn); `POST
 * /sessions/{id}/stop` asks the turn to stop. The events route is served by the streaming
 * function URL in AWS, like the streamed turn.
 */
import { streamSSE } from 'hono/streaming';
import { toHttpError } from '../errors.js';
import { eventsQuery, parse, stopBody } from '../schemas.js';
import type { RunningTurn } from '../session-service.js';
import { pathSessionId, readJson, type App, type RouteDeps } from '../http.js';
import { messageJson, runningTurnJson } from './session-json.js';
import { endFailure } from './turn-json.js';

export function eventRoutes(app: App, { sessions, limits, report }: RouteDeps): void {
  app.get('/sessions/:id/events', async (c) => {
    const id = pathSessionId(c);
    const { from } = parse('query', eventsQuery, c.req.query());
    const deadline = AbortSignal.timeout(limits.streamDeadlineMs);
    const disconnected = new AbortController();
    // Opened before the stream starts, so that 404 is a real status.
    const events = await sessions.follow(c.get('owner'), id, {
      ...(from === undefined ? {} : { from }),
      signal: AbortSignal.any([deadline, disconnected.signal]),
      pollMs: limits.eventsPollMs,
    });
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => disconnected.abort());
      let seen = from ?? null;
      let turn: RunningTurn | null = null;
      try {
        for await (const event of events) {
          switch (event.type) {
            case 'turn':
              turn = event.turn;
              await stream.writeSSE({ event: 'turn', data: JSON.stringify({ turn: runningTurnJson(event.turn) }) });
              break;
            case 'message':
              seen = event.index + 1;
              // The id is where to follow on from: `?from=<id>` after a dropped connection.
              await stream.writeSSE({ event: 'message', id: String(seen), data: JSON.stringify({ message: messageJson(event.record) }) });
              break;
            case 'end':
              await stream.writeSSE({ event: 'end', data: JSON.stringify({ entry_count: event.entryCount, turn: runningTurnJson(event.turn) }) });
              break;
            default:
              event satisfies never;
          }
        }
      } catch (error) {
        // The stream has started: a failure can only end it, saying what the status would have
        // been. The turn may still run; the client follows on from the last id it got.
        const failure = toHttpError(error);
        report(failure, `events of session ${id}`, error);
        await stream.writeSSE({
          event: 'end',
          data: JSON.stringify({ ...(seen === null ? {} : { entry_count: seen }), turn: runningTurnJson(turn), ...endFailure(failure) }),
        });
      }
    });
  });

  app.post('/sessions/:id/stop', async (c) => {
    const id = pathSessionId(c);
    parse('body', stopBody, await readJson(c, limits.bodyLimitBytes));
    const turn = await sessions.stop(c.get('owner'), id);
    return c.json({ turn: runningTurnJson(turn) }, 202);
  });
}
