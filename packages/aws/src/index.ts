/**
 * @panto/aws — sessions in DynamoDB (`DynamoStore`: atomic, conditional batch appends),
 * listed, leased and deleted per owner (what an expired one leaves behind purged), exported
 * to / imported from S3 as the same JSONL the filesystem store writes, and archived there
 * when cold (restored when opened). See docs/aws.md.
 */
export {
  DynamoStore,
  type DynamoStoreCreateOptions,
  type DynamoStoreLeaseOptions,
  type DynamoStoreOpenOptions,
  type LeasedSession,
} from './dynamo-store.js';
export {
  InvalidBatchError,
  InvalidCursorError,
  OffloadRequiredError,
  SessionBusyError,
  SessionConflictError,
  SessionCorruptError,
  SessionExistsError,
  SessionNotFoundError,
  SessionRestoringError,
} from './errors.js';
export {
  DEFAULT_EXPORT_URL_SECONDS,
  exportSession,
  listExports,
  type ExportSessionOptions,
  type ListedExport,
  type ListExportsOptions,
  type SessionExport,
} from './export-session.js';
export { importSession, type ImportSessionOptions } from './import-session.js';
export { acquireSessionLease, type AcquireSessionLeaseOptions, type SessionLease } from './lease.js';
export { TITLE_MAX_LENGTH, type SessionMetadata } from './metadata.js';
export type { S3Location } from './offload.js';
export { DEFAULT_SESSION_CACHE_BYTES, SessionCache, type CachedSession, type SessionCacheOptions } from './session-cache.js';
export {
  deleteSession,
  purgeSessionItems,
  TOMBSTONE_TTL_SECONDS,
  type DeleteSessionOptions,
  type ExportLocation,
  type PurgeResult,
  type PurgeSessionItemsOptions,
} from './delete-session.js';
export {
  listOwnerSessions,
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  type ListSessionsOptions,
  type SessionPage,
} from './owner-sessions.js';
export { backfillActivityIndex, createTable, GSI_BY_ACTIVITY, GSI_BY_OWNER, isValidSessionId, type TableOptions } from './table.js';
export {
  archiveSession,
  type ArchiveOutcome,
  type ArchiveSessionOptions,
  type ArchiveSkipReason,
  type ArchiveStep,
} from './archive-session.js';
export { DEFAULT_RESTORE_WAIT_MS, restoreSession, type RestoreSessionOptions } from './restore-session.js';
export { DEFAULT_SWEEP_MAX_SESSIONS, sweepColdSessions, type SweepColdSessionsOptions, type SweepResult } from './sweep.js';
export { listSessionObjects, type SessionObject } from './session-objects.js';
