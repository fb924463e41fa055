/** The budgets of one request, and how `PANTO_*` settings change them. */
import { type Env, integer } from './env-setting.js';

/** Budgets of one request. */
export interface ServiceLimits {
  /** A synchronous turn stops here (below API Gateway's fixed 30 s), with all so far persisted. */
  deadlineMs: number;
  /** A streamed turn stops here (below the streaming function's 15 min timeout). */
  streamDeadlineMs: number;
  /** Request bodies above this are refused with 413 before they are parsed. */
  bodyLimitBytes: number;
  /**
   * `POST /chat` bodies above this are refused with 413: the AI SDK's transport sends the
   * whole conversation each time (the server reads only its newest message), so a long chat
   * needs more room than a prompt does.
   */
  chatBodyLimitBytes: number;
  /**
   * The term of a turn's lease (sync, streamed, compaction): it holds this long past its
   * last renewal, so a crashed turn's session is free again at most this long after the crash.
   */
  leaseMs: number;
  /** How often a running turn renews its lease: at most half of `leaseMs` (a third rides out one failed renewal). */
  leaseRenewMs: number;
  /** How often `GET /sessions/{id}/events` looks for messages a running turn persisted. */
  eventsPollMs: number;
  /**
   * A client of a stream (a follower, a streamed turn) that has not taken the next event
   * for this long is disconnected: what a stalled client holds on the server is one event,
   * for at most this long. The turn itself runs on.
   */
  streamStallMs: number;
  /** A stream silent this long gets a `: keep-alive` comment, so that a proxy in front does not cut it (CloudFront: 60 s). */
  streamKeepAliveMs: number;
  /** Lifetime of an export's presigned URL. */
  exportUrlTtlSeconds: number;
}

export const DEFAULT_SERVICE_LIMITS: ServiceLimits = {
  deadlineMs: 25_000,
  streamDeadlineMs: 840_000,
  bodyLimitBytes: 256 * 1024,
  chatBodyLimitBytes: 4 * 1024 * 1024,
  leaseMs: 30_000,
  leaseRenewMs: 10_000,
  eventsPollMs: 1_000,
  streamStallMs: 10_000,
  streamKeepAliveMs: 15_000,
  exportUrlTtlSeconds: 3600,
};

/** The request budgets, from `PANTO_*_MS` and friends. */
export function serviceLimits(env: Env): ServiceLimits {
  const deadlineMs = integer(env, 'PANTO_DEADLINE_MS', DEFAULT_SERVICE_LIMITS.deadlineMs, 1, 29_000);
  const streamDeadlineMs = integer(env, 'PANTO_STREAM_DEADLINE_MS', DEFAULT_SERVICE_LIMITS.streamDeadlineMs, 1, 880_000);
  // Renewed while the turn runs, the lease no longer needs to outlast the deadline: it is
  // the time a crashed turn keeps its session. (PANTO_STREAM_LEASE_MS is gone: one lease for every turn.)
  const leaseMs = integer(env, 'PANTO_LEASE_MS', DEFAULT_SERVICE_LIMITS.leaseMs, 1_000, 3_600_000);
  return {
    deadlineMs,
    streamDeadlineMs,
    bodyLimitBytes: integer(env, 'PANTO_BODY_LIMIT_BYTES', DEFAULT_SERVICE_LIMITS.bodyLimitBytes, 1, 6 * 1024 * 1024),
    chatBodyLimitBytes: integer(env, 'PANTO_CHAT_BODY_LIMIT_BYTES', DEFAULT_SERVICE_LIMITS.chatBodyLimitBytes, 1, 6 * 1024 * 1024),
    leaseMs,
    // Three renewals a term by default: one that fails (a blip of the store) loses nothing.
    leaseRenewMs: integer(env, 'PANTO_LEASE_RENEW_MS', Math.floor(leaseMs / 3), 100, Math.floor(leaseMs / 2)),
    eventsPollMs: integer(env, 'PANTO_EVENTS_POLL_MS', DEFAULT_SERVICE_LIMITS.eventsPollMs, 50, 60_000),
    streamStallMs: integer(env, 'PANTO_STREAM_STALL_MS', DEFAULT_SERVICE_LIMITS.streamStallMs, 100, 600_000),
    streamKeepAliveMs: integer(env, 'PANTO_STREAM_KEEPALIVE_MS', DEFAULT_SERVICE_LIMITS.streamKeepAliveMs, 50, 55_000),
    exportUrlTtlSeconds: integer(env, 'PANTO_EXPORT_URL_TTL_SECONDS', DEFAULT_SERVICE_LIMITS.exportUrlTtlSeconds, 1, 604_800),
  };
}
