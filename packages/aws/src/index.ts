/**
 * @panto/aws — sessions in DynamoDB (`DynamoStore`: atomic, conditional batch appends),
 * listed, leased (a short lease that a heartbeat renews and the appends are fenced by) and
 * deleted per owner (what an expired one leaves behind purged), exported to / imported from
 * S3 as the same JSONL the filesystem store writes, and archived there when cold (restored
 * when opened). See docs/aws.md.
 */
export {
  DynamoStore,
  type DynamoStoreCreateOptions,
  type DynamoStoreLeaseOptions,
  type DynamoStoreOpenOptions,
  type LeasedSession,
} from './store/dynamo-store.js';
export {
  EntryNotFoundError,
  InvalidBatchError,
  InvalidCursorError,
  ObjectsNotDeletedError,
  OffloadRequiredError,
  SessionBusyError,
  SessionConflictError,
  SessionCorruptError,
  SessionExistsError,
  SessionLeaseLostError,
  SessionNotFoundError,
  SessionRestoringError,
  StopRequestedError,
  TurnNotRunningError,
  UnprocessedWritesError,
  type ObjectNotDeleted,
} from './errors.js';
export {
  DEFAULT_EXPORT_URL_SECONDS,
  exportSession,
  listExports,
  type ExportSessionOptions,
  type ListedExport,
  type ListExportsOptions,
  type SessionExport,
} from './transfer/export-session.js';
export { HEALTH_KEY, pingTable, type TablePing } from './table/health.js';
export {
  DEFAULT_IDEMPOTENCY_TTL_SECONDS,
  DynamoIdempotencyStore,
  IDEMPOTENCY_PREFIX,
  idempotencyPk,
  MAX_INLINE_RESPONSE_BYTES,
  requestFingerprint,
  type DynamoIdempotencyStoreOptions,
  type IdempotencyClaim,
  type IdempotencyStore,
  type StoredResponse,
} from './idempotency/dynamo-idempotency-store.js';
export { importSession, type ImportSessionOptions } from './transfer/import-session.js';
export {
  acquireSessionLease,
  requestTurnStop,
  type AcquireSessionLeaseOptions,
  type LeaseRenewal,
  type RequestTurnStopOptions,
  type SessionLease,
} from './lease/session-lease.js';
export {
  keepSessionLease,
  SYSTEM_LEASE_CLOCK,
  type HeartbeatEnd,
  type KeepSessionLeaseOptions,
  type LeaseClock,
  type LeaseHeartbeat,
} from './lease/lease-heartbeat.js';
export { TITLE_MAX_LENGTH, titleOf, titleProblem, type HeldLease, type SessionMetadata } from './meta/meta-item.js';
export { updateSession, type UpdateSessionOptions } from './sessions/update-session.js';
export type { S3Location } from './entries/offload.js';
export {
  DEFAULT_SESSION_CACHE_BYTES,
  SessionCache,
  type CachedSession,
  type SessionCacheOptions,
} from './store/session-cache.js';
export {
  deleteSession,
  purgeSessionItems,
  TOMBSTONE_TTL_SECONDS,
  type DeleteSessionOptions,
  type ExportLocation,
  type PurgeResult,
  type PurgeSessionItemsOptions,
} from './sessions/delete-session.js';
export {
  listOwnerSessions,
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  type ListSessionsOptions,
  type SessionPage,
} from './sessions/list-owner-sessions.js';
export {
  backfillActivityIndex,
  createTable,
  GSI_BY_ACTIVITY,
  GSI_BY_OWNER,
  isValidSessionId,
  type TableOptions,
} from './table/keys.js';
export {
  archiveSession,
  type ArchiveOutcome,
  type ArchiveSessionOptions,
  type ArchiveSkipReason,
  type ArchiveStep,
} from './archive/archive-session.js';
export { DEFAULT_RESTORE_WAIT_MS, restoreSession, type RestoreSessionOptions } from './archive/restore-session.js';
export {
  DEFAULT_SWEEP_MAX_SESSIONS,
  sweepColdSessions,
  type SweepColdSessionsOptions,
  type SweepResult,
} from './archive/sweep-cold-sessions.js';
export { listSessionObjects, type SessionObject } from './transfer/session-objects.js';
