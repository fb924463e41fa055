/**
 * `@panto/aws/service`: what a server's requests run on — the store, the session cache, the
 * partial answer, the usage ledger, an owner's sessions, the turn lease, idempotency keys,
 * the table's keys and checks, and the errors. Not the JSONL transfer (`@panto/aws/transfer`)
 * nor the archiving of cold sessions (the package's root): a bundle that imports only this
 * (a Lambda function) loads those when a request needs them. The root exports all of it too.
 */

// The store: a handle on one session.
export { DynamoStore, type LeasedSession } from './store/dynamo-store.js';
export type { DynamoStoreCreateOptions, DynamoStoreLeaseOptions, DynamoStoreOpenOptions, DynamoStoreTurnOptions } from './store/store-options.js';
export {
  DEFAULT_SESSION_CACHE_BYTES,
  SessionCache,
  type CachedSession,
  type SessionCacheOptions,
} from './store/session-cache.js';
export type { S3Location } from './entries/offload.js';
// The answer a running turn has produced so far.
export { getPartial, MAX_PARTIAL_BYTES, partialOfRunning, type PartialAnswer, type PartialMessage } from './partial/partial-answer.js';
export { type AppendExtras, type AppendHook, type ExtraRefusal, sendExtras } from './store/write/transaction-extras.js';

// The usage ledger: per-owner totals, limits, and the writes that ride on a turn's appends.
export {
  decodeHolds,
  decodeOverrides,
  decodeSlots,
  effectiveLimits,
  holdName,
  LIMIT_NAMES,
  limitProblem,
  MAX_LIMIT,
  NO_OVERRIDES,
  periodsOf,
  type Hold,
  type LimitOverrides,
  type OwnerLimits,
  type Periods,
} from './ledger/ledger-items.js';
export {
  NO_USAGE,
  reservationWrites,
  slotRelease,
  totalsWrite,
  type GateCheck,
  type HoldChange,
  type LedgerTarget,
  type ReservationPlan,
  type TotalsWrite,
  type UsageDelta,
} from './ledger/ledger-writes.js';
export {
  decodeTotals,
  listLedgerOwners,
  readOwnerOverrides,
  readOwnerUsage,
  setOwnerLimits,
  sweepHolds,
  sweepSlots,
  type LimitChange,
  type OwnerUsage,
  type UsageTotals,
} from './ledger/owner-usage.js';

// What META says of a session.
export type { HeldLease, SessionMetadata } from './meta/meta-item.js';
export { TITLE_MAX_LENGTH, titleOf, titleProblem } from './meta/title.js';

// An owner's sessions: listed, updated, deleted.
export {
  listOwnerSessions,
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  type ListSessionsOptions,
  type SessionPage,
} from './sessions/list-owner-sessions.js';
export { updateSession, type UpdateSessionOptions } from './sessions/update-session.js';
export {
  deleteSession,
  purgeSessionItems,
  TOMBSTONE_TTL_SECONDS,
  type DeleteSessionOptions,
  type ExportLocation,
  type PurgeResult,
  type PurgeSessionItemsOptions,
} from './sessions/delete-session.js';

// The turn lease.
export { acquireSessionLease, type AcquireSessionLeaseOptions } from './lease/acquire-session-lease.js';
export type { LeaseRenewal, ReleaseOptions, SessionLease } from './lease/session-lease.js';
export { requestTurnStop, type RequestTurnStopOptions } from './lease/request-turn-stop.js';
export {
  keepSessionLease,
  SYSTEM_LEASE_CLOCK,
  type HeartbeatEnd,
  type KeepSessionLeaseOptions,
  type LeaseClock,
  type LeaseHeartbeat,
} from './lease/lease-heartbeat.js';

// Idempotency keys.
export {
  DEFAULT_IDEMPOTENCY_TTL_SECONDS,
  DynamoIdempotencyStore,
  IDEMPOTENCY_PREFIX,
  idempotencyPk,
  MAX_INLINE_RESPONSE_BYTES,
  type DynamoIdempotencyStoreOptions,
} from './idempotency/dynamo-idempotency-store.js';
export { requestFingerprint } from './idempotency/request-fingerprint.js';
export type { IdempotencyClaim, IdempotencyStore, StoredResponse } from './idempotency/types.js';

// The table.
export {
  ACTIVITY_BACKFILL_MIGRATION,
  backfillActivityIndex,
  backfillActivityIndexOnce,
  type BackfillOnceOptions,
  type BackfillOptions,
  type BackfillOutcome,
} from './table/activity-backfill.js';
export { createTable, type TableOptions } from './table/create-table.js';
export { BY_OWNER_PROJECTION, GSI_BY_ACTIVITY, GSI_BY_OWNER, META_SK, SESSION_PK_PREFIX } from './table/keys.js';
export { isValidOwner, isValidSessionId, MAX_OWNER_LENGTH } from './table/validation.js';
export { HEALTH_KEY, pingTable, type TablePing } from './table/health.js';

// Errors.
export {
  BudgetExceededError,
  EntryNotFoundError,
  InvalidBatchError,
  InvalidCursorError,
  ObjectsNotDeletedError,
  OffloadRequiredError,
  RateLimitedError,
  SessionBusyError,
  SessionConflictError,
  SessionCorruptError,
  SessionExistsError,
  SessionLeaseLostError,
  SessionNotFoundError,
  SessionRestoringError,
  StopRequestedError,
  TurnNotRunningError,
  UnpricedModelError,
  UnprocessedWritesError,
  type ObjectNotDeleted,
} from './errors.js';
