/**
 * The HTTP connection pool of the DynamoDB and S3 clients: keep-alive connections, at most
 * `maxSockets` open to one endpoint at once; a request beyond that waits in the SDK's queue
 * for a free one. The SDK's default is 50, and it warns (`socket usage at capacity=50 and
 * 100 additional requests are enqueued`) when requests have queued for seconds. The size is
 * what one process has in flight at once, which differs by where it runs — hence two sizes.
 * (No SDK import here: the api function's S3 client is loaded at its first call, deferred-s3.ts.)
 */
import type { AgentOptions } from 'node:http';

/**
 * A Lambda instance serves one request at a time. What it has in flight to one endpoint at
 * once is that request's own calls — a plain turn holds 1 DynamoDB request at a time
 * (`npm run bench -- lambda-memory` counts connections at a proxy), 2 when its lease renewal
 * falls during its write — and its widest fan-outs: the S3 reads or writes of every
 * offloaded item of one page or batch at once, an import's 4 item puts, the archive sweep's
 * 2 sessions at a time. 50 holds all of them with room to spare, and still bounds the
 * offloaded-item fan-out (a session with hundreds of offloaded tool results reads 50 at a
 * time instead of opening hundreds of TLS connections from one small instance). It is the
 * SDK's own default, chosen here rather than inherited, so that a change of the SDK's
 * default does not change it.
 */
export const LAMBDA_MAX_SOCKETS = 50;

/**
 * The local stack (`npm start`) is one process serving every turn at once, each holding its
 * write and its lease renewal (every second on the local stack) in flight:
 * `npm run bench -- local-load` (100 sessions × 10 turns at once) measured 171–174 DynamoDB
 * requests in flight at the peak, which queued at 50 — the SDK warned, and turns waited for
 * sockets: 7 turns/s, p99 36 s, against 13 turns/s and p99 12–15 s unqueued. 256 serves
 * 100 concurrent sessions without queueing; a heavier load queues in the SDK, which warns,
 * rather than opening sockets without bound until the process runs out of file descriptors
 * (each socket is one; a common soft limit is 1,024).
 */
export const LOCAL_MAX_SOCKETS = 256;

/** The client configuration (`requestHandler`) of a pool of `maxSockets` keep-alive connections per endpoint, for http and https endpoints alike. */
export function httpPool(maxSockets: number): { requestHandler: { httpAgent: AgentOptions; httpsAgent: AgentOptions } } {
  const agent: AgentOptions = { keepAlive: true, maxSockets };
  return { requestHandler: { httpAgent: agent, httpsAgent: agent } };
}
