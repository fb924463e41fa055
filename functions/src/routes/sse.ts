/** Writing server-sent events to one client, for the streamed turn and the followers of a session. */
import type { Context } from 'hono';
import type { SSEStreamingApi } from 'hono/streaming';
import type { AppEnv } from '../app/app-env.js';

/** Sends a client its events, one at a time, and lets go of a client that stops taking them. */
export interface EventSender {
  /**
   * Writes one event; resolves true once the client's connection took it, false when the
   * client is gone — it went away, or it took nothing for `stallMs` and was disconnected.
   * Never rejects. Sends after a false resolve at once with false.
   */
  send(event: string, data: object, id?: string): Promise<boolean>;
  /** Whether the client is gone (see {@link send}). */
  readonly gone: boolean;
  /**
   * Call after the last event: a client that has not read the rest of the stream within
   * `stallMs` is disconnected, so that no connection outlives its stream.
   */
  finish(): void;
}

/**
 * Sends on `stream` with backpressure: an event is written only once the one before it was
 * taken, so a client that reads slowly holds one event here. One that takes nothing for
 * `stallMs` (it stalled, or means harm) is disconnected — its connection is dropped, so
 * what it had not read is let go too — and `onGone` runs (stop the work that feeds it).
 */
export function eventSender(c: Context<AppEnv>, stream: SSEStreamingApi, options: { stallMs: number; onGone?: () => void }): EventSender {
  let gone = false;
  const leave = (): void => {
    if (gone) return;
    gone = true;
    options.onGone?.();
  };
  stream.onAbort(leave);
  const drop = (): void => {
    leave();
    stream.abort();
    // A Node server keeps the connection while its unread bytes wait in the socket: drop it.
    c.env?.outgoing?.destroy();
  };
  return {
    get gone() {
      return gone;
    },
    async send(event, data, id) {
      if (gone || stream.aborted) return false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stalled = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), options.stallMs);
      });
      const written = stream.writeSSE({ event, data: JSON.stringify(data), ...(id === undefined ? {} : { id }) }).then(() => true);
      const taken = await Promise.race([written, stalled]);
      clearTimeout(timer);
      if (!taken) drop();
      return taken && !gone;
    },
    finish() {
      const outgoing = c.env?.outgoing;
      if (outgoing === undefined || gone) return;
      setTimeout(() => {
        if (!outgoing.writableFinished) drop();
      }, options.stallMs).unref();
    },
  };
}
