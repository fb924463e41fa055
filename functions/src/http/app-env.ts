/** What the app reads from its runtime (its Hono environment), and the app's type. */
import type { Usage } from '@panto/core';
import type { Hono } from 'hono';

/** What the app uses of a Node server's response (`@hono/node-server` passes it as `outgoing`). */
export interface NodeResponse {
  /** Drops the connection at once, with whatever the client has not read yet. */
  destroy(): unknown;
  /** Whether the client has been sent the whole response. */
  readonly writableFinished: boolean;
}

/** What the app reads from its runtime: the Lambda event, when there is one. */
export interface AppEnv {
  /** `event`: the Lambda event; `outgoing`: a Node server's response (its connection), in the local stack. */
  Bindings: { event?: unknown; outgoing?: NodeResponse };
  Variables: {
    owner: string;
    /** What the Idempotency-Key did for this request, when it had one. */
    idempotency?: 'claimed' | 'replayed';
    // What the request log records (telemetry/request-telemetry.ts); set by the routes.
    sessionId?: string;
    turn?: true;
    usage?: Usage;
    errorCode?: string;
    /** For a streamed turn: settles when its stream has ended (the log waits for it). */
    streamed?: Promise<void>;
  };
}

/** The API's Hono app. */
export type ApiApp = Hono<AppEnv>;
