/**
 * The request's span: a SERVER span per request, `<method> <route>` as the OpenAPI document
 * names the route, continuing the caller's trace when it sent a W3C `traceparent`. A streamed
 * answer's span ends when its stream does. Where the process may be frozen as soon as the
 * answer is out (Lambda), the spans are exported before it is: before a buffered answer is
 * returned, and before a streamed one's last byte.
 */
import { type Context, context as contexts, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import type { Context as HonoContext, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../../http/app-env.js';
import { ownerHash, routeOf } from '../request-telemetry.js';
import { requestTraces } from './request-trace.js';

/** Reads a request's headers for the propagator. */
const HEADERS = {
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
  keys: (headers: Headers) => [...headers.keys()],
};

/**
 * The middleware that opens each request's span; `flush` (when given) exports what has ended
 * before the answer ends.
 */
export function requestSpans(tracer: Tracer, flush: (() => Promise<void>) | undefined): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, c.req.raw.headers, HEADERS);
    const url = new URL(c.req.url);
    const span = tracer.startSpan(
      c.req.method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': c.req.method, 'url.path': url.pathname, 'url.scheme': url.protocol.replace(/:$/, '') } },
      parent,
    );
    const request: Context = trace.setSpan(parent, span);
    await requestTraces.run({ request, current: request }, () => contexts.with(request, next));
    const streamed = c.get('streamed');
    if (streamed === undefined) {
      endRequest(span, c);
      await flush?.();
      return;
    }
    const ended = streamed.then(() => endRequest(span, c));
    const body = c.res.body;
    if (flush === undefined || body === null) return;
    // The stream's last byte waits for its spans' export: the function may be frozen after it.
    c.res = new Response(body.pipeThrough(new TransformStream({ flush: () => ended.then(flush) })), c.res);
  };
}

/** Names the span after its route and records the answer. Idempotent. */
function endRequest(span: Span, c: HonoContext<AppEnv>): void {
  if (!span.isRecording()) return;
  const route = routeOf(c);
  const owner = c.get('owner');
  const sessionId = c.get('sessionId');
  const errorCode = c.get('errorCode');
  span.updateName(`${c.req.method} ${route}`);
  span.setAttributes({
    'http.route': route,
    'http.response.status_code': c.res.status,
    ...(sessionId === undefined ? {} : { 'panto.session_id': sessionId }),
    ...(owner === undefined ? {} : { 'panto.owner_hash': ownerHash(owner) }),
    ...(errorCode === undefined ? {} : { 'panto.error_code': errorCode }),
  });
  if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR }).setAttribute('error.type', String(c.res.status));
  span.end();
}
