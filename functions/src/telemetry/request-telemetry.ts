/**
 * One record per request, for logs and metrics: which route, what it answered, how long it
 * took, which session and (hashed) owner, and the tokens a turn used. Never the owner in
 * clear, never a prompt, a token or a key. The seam is {@link Telemetry}; Lambda's is
 * Powertools' Logger and Metrics (`lambda-telemetry.ts`, beside this), the local stack's a plain line.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Usage } from '@panto/core';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppEnv } from '../http/app-env.js';

/** What is logged of one request (snake_case: it is the log line's shape). */
export interface RequestRecord {
  /** API Gateway's or the function URL's request id; the Lambda request id; else a fresh one (local). */
  request_id: string;
  method: string;
  /** The route as the OpenAPI document names it (`/sessions/{id}/messages`); `*` when none matched. */
  route: string;
  status: number;
  duration_ms: number;
  session_id?: string;
  /** The first 16 hex digits of the owner's SHA-256: lets lines of one caller be grouped, without naming them. */
  owner_hash?: string;
  /** Set when a turn ran (synchronous or streamed). */
  turn?: true;
  /** Tokens the turn or compaction used. */
  usage?: Usage;
  /** The error code answered (`session_busy`, …), when the status is 4xx or 5xx. */
  error_code?: string;
  /** What the Idempotency-Key did, when there was one. */
  idempotency?: 'claimed' | 'replayed';
}

/** Where request records go. */
export interface Telemetry {
  /**
   * Called once per request when it has been answered — a streamed turn when its stream ends.
   * `lambdaContext` is the Lambda invocation's context, when there is one. Must not throw.
   */
  request(record: RequestRecord, lambdaContext: unknown): void;
}

const ownerHashes = new Map<string, string>();

/** A hash of the owner to log instead of the owner. */
export function ownerHash(owner: string): string {
  let hash = ownerHashes.get(owner);
  if (hash === undefined) {
    hash = createHash('sha256').update(owner).digest('hex').slice(0, 16);
    // A few owners make most requests: their hashes are kept (a bounded few), not made again each request.
    if (ownerHashes.size >= 1024) ownerHashes.clear();
    ownerHashes.set(owner, hash);
  }
  return hash;
}

/** The middleware that times each request and hands its record to `telemetry`. */
export function telemetryMiddleware(telemetry: Telemetry): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const env = c.env as
      | { requestContext?: { requestId?: unknown }; lambdaContext?: { awsRequestId?: unknown }; context?: { awsRequestId?: unknown } }
      | undefined;
    const lambdaContext = env?.lambdaContext ?? env?.context;
    const requestId = env?.requestContext?.requestId ?? lambdaContext?.awsRequestId;
    const owner = c.get('owner');
    const base = (): RequestRecord => {
      const usage = c.get('usage');
      const sessionId = c.get('sessionId');
      const errorCode = c.get('errorCode');
      const idempotency = c.get('idempotency');
      return {
        request_id: typeof requestId === 'string' ? requestId : randomUUID(),
        method: c.req.method,
        route: routeOf(c),
        status: c.res.status,
        duration_ms: Math.round(performance.now() - started),
        ...(sessionId === undefined ? {} : { session_id: sessionId }),
        ...(owner === undefined ? {} : { owner_hash: ownerHash(owner) }),
        ...(c.get('turn') ? { turn: true as const } : {}),
        ...(usage === undefined ? {} : { usage }),
        ...(errorCode === undefined ? {} : { error_code: errorCode }),
        ...(idempotency === undefined ? {} : { idempotency }),
      };
    };
    const streamed = c.get('streamed');
    // A streamed turn answers 200 at once and runs on: its record waits for the stream to end.
    if (streamed) void streamed.then(() => telemetry.request(base(), lambdaContext));
    else telemetry.request(base(), lambdaContext);
  };
}

/**
 * The route the request matched, as the OpenAPI document names it — also when a middleware
 * answered before its handler ran (a 401) — or `*` when none did.
 */
export function routeOf(c: Context<AppEnv>): string {
  const route = matchedRoutes(c).findLast((each) => each.method !== 'ALL');
  return route === undefined ? '*' : route.path.replace(/:(\w+)/g, '{$1}');
}

/**
 * Lines written a burst at a time: a line waits at most `delayMs` for the lines of requests
 * that end near it, so a busy server makes one write for many requests rather than one each
 * (on a pipe or a terminal, stderr's every write is a system call that blocks). What waits is
 * written when the process exits, also on an uncaught error; only a kill with SIGKILL can
 * lose the last `delayMs` of lines.
 */
export function batchedLines(write: (text: string) => void, delayMs = 50): (line: string) => void {
  let waiting = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (waiting === '') return;
    const text = waiting;
    waiting = '';
    write(text);
  };
  process.on('exit', flush);
  return (line) => {
    waiting += `${line}\n`;
    timer ??= setTimeout(flush, delayMs).unref();
  };
}

/** The local stack's record: one plain line on stderr (written in bursts, {@link batchedLines}). */
export function plainTelemetry(write: (line: string) => void = batchedLines((text) => process.stderr.write(text))): Telemetry {
  return {
    request(record) {
      const parts = [`panto: ${record.method} ${record.route} → ${record.status} in ${record.duration_ms} ms`];
      if (record.session_id) parts.push(`session ${record.session_id}`);
      if (record.usage) parts.push(`tokens ${record.usage.input_tokens} in / ${record.usage.output_tokens} out`);
      if (record.error_code) parts.push(record.error_code);
      if (record.idempotency === 'replayed') parts.push('replayed');
      write(parts.join(', '));
    },
  };
}
