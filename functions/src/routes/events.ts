/**
 * Following a session's running turn from any connection, and stopping it:
 * `GET /sessions/{id}/events` streams the messages the turn persists, as server-sent events,
 * read from the store (another Lambda instance may be running the turn); `POST
 * /sessions/{id}/stop` asks the turn to stop. The events route is served by the streaming
 * function URL in AWS, like the streamed turn.
 */
import { streamSSE } from 'hono/streaming';
import { toHttpError } from '../errors.js';
import { eventsQuery, parse, stopBody } from '../api/request-schemas.js';
import type { RunningTurn } from '../services/session-context.js';
import type { ApiApp } from '../http/app-env.js';
import { route } from '../http/route.js';
import { pathSessionId, readJson } from './read-request.js';
import type { RouteDeps } from './route-deps.js';
import { messageJson, partialJson, runningTurnJson } from './session-json.js';
import { eventSender } from './sse.js';
import { endFailure } from './turn-json.js';
import type { StoppedTurnJson } from '../api/response-schemas.js';

export function eventRoutes(app: ApiApp, { turns, limits, report }: RouteDeps): void {
  route(app, 'followSession', async (c) => {
    const id = pathSessionId(c);
    const { from } = parse('query', eventsQuery, c.req.query());
    const deadline = AbortSignal.timeout(limits.streamDeadlineMs);
    const disconnected = new AbortController();
    // Opened before the stream starts, so that 404 is a real status.
    const events = await turns.follow(c.get('owner'), id, {
      ...(from === undefined ? {} : { from }),
      signal: AbortSignal.any([deadline, disconnected.signal]),
      pollMs: limits.eventsPollMs,
    });
    return streamSSE(c, async (stream) => {
      // A follower that goes away, or stalls past the limit, stops the following (and lets go of what it held).
      const sender = eventSender(c, stream, { stallMs: limits.streamStallMs, keepAliveMs: limits.streamKeepAliveMs, onGone: () => disconnected.abort() });
      let seen = from ?? null;
      let turn: RunningTurn | null = null;
      try {
        for await (const event of events) {
          switch (event.type) {
            case 'turn':
              turn = event.turn;
              await sender.send('turn', { turn: runningTurnJson(event.turn) });
              break;
            case 'message':
              seen = event.index + 1;
              // The id is where to follow on from: `?from=<id>` after a dropped connection.
              await sender.send('message', { message: messageJson(event.record) }, String(seen));
              break;
            case 'partial':
              // The answer so far, replacing the one sent before (no id: it is no place to follow on from).
              await sender.send('partial', partialJson(event.partial));
              break;
            case 'end':
              // The last event: the stream closes after it (a follower that does not take it within the limit is dropped).
              await sender.send('end', { entry_count: event.entryCount, turn: runningTurnJson(event.turn) });
              break;
            default:
              event satisfies never;
          }
          if (sender.gone) break;
        }
      } catch (error) {
        // The stream has started: a failure can only end it, saying what the status would have
        // been. The turn may still run; the client follows on from the last id it got.
        const failure = toHttpError(error);
        report(failure, `events of session ${id}`, error);
        await sender.send('end', { ...(seen === null ? {} : { entry_count: seen }), turn: runningTurnJson(turn), ...endFailure(failure) });
      }
      sender.finish();
    });
  });

  route(app, 'stopTurn', async (c) => {
    const id = pathSessionId(c);
    parse('body', stopBody, await readJson(c, limits.bodyLimitBytes));
    const turn = await turns.stop(c.get('owner'), id);
    return c.json({ turn: runningTurnJson(turn) } satisfies StoppedTurnJson, 202);
  });
}
