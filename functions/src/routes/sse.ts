/** Writing server-sent events to one client, for the streamed turn and the followers of a session. */
import type { Context } from 'hono';
import type { SSEStreamingApi } from 'hono/streaming';
import type { AppEnv } from '../http/app-env.js';

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
 * While nothing is sent for `keepAliveMs`, a comment line (`: keep-alive`) is: a proxy in
 * front (CloudFront cuts a response silent for 60 s) keeps the stream open through a long
 * tool call or a slow model. Clients ignore comments, as the SSE format says they must.
 */
export function eventSender(c: Context<AppEnv>, stream: SSEStreamingApi, options: { stallMs: number; keepAliveMs?: number; onGone?: () => void }): EventSender {
  let gone = false;
  let beat: ReturnType<typeof setInterval> | undefined;
  const leave = (): void => {
    if (gone) return;
    gone = true;
    clearInterval(beat);
    options.onGone?.();
  };
  stream.onAbort(leave);
  const drop = (): void => {
    leave();
    stream.abort();
    // A Node server keeps the connection while its unread bytes wait in the socket: drop it.
    c.env?.outgoing?.destroy();
  };
  /** Every write, in order: an event waits for a keep-alive in flight, and the other way round. */
  let writing: Promise<unknown> = Promise.resolve();
  let sending = 0;
  let lastWrite = Date.now();
  const write = (next: () => Promise<unknown>): Promise<boolean> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), options.stallMs);
    });
    const written = writing.then(next).then(() => true);
    // The chain of writes goes on; this write's failure reaches its caller through `written`.
    writing = written.catch(() => undefined);
    return Promise.race([written, stalled]).then((taken) => {
      clearTimeout(timer);
      lastWrite = Date.now();
      if (!taken) drop();
      return taken && !gone;
    });
  };
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  beat = setInterval(
    () => {
      if (gone || stream.aborted || sending > 0 || Date.now() - lastWrite < keepAliveMs) return;
      void write(() => stream.write(': keep-alive\n\n'));
    },
    Math.max(10, Math.floor(keepAliveMs / 4)),
  );
  beat.unref?.();
  return {
    get gone() {
      return gone;
    },
    async send(event, data, id) {
      if (gone || stream.aborted) return false;
      sending++;
      try {
        return await write(() => stream.writeSSE({ event, data: JSON.stringify(data), ...(id === undefined ? {} : { id }) }));
      } finally {
        sending--;
      }
    },
    finish() {
      clearInterval(beat);
      const outgoing = c.env?.outgoing;
      if (outgoing === undefined || gone) return;
      setTimeout(() => {
        if (!outgoing.writableFinished) drop();
      }, options.stallMs).unref();
    },
  };
}

/** How long a stream may be silent before a keep-alive comment is sent: well inside CloudFront's 60 s. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;
