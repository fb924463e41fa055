/**
 * @panto/aws — sessions in DynamoDB (`DynamoStore`: atomic, conditional batch appends),
 * listed, leased (a short lease that a heartbeat renews and the appends are fenced by) and
 * deleted per owner (what an expired one leaves behind purged), exported to / imported from
 * S3 as the same JSONL the filesystem store writes, and archived there when cold (restored
 * when opened). See docs/aws.md.
 */

export * from './service.js';
export * from './transfer.js';

// Cold sessions: archived to S3, restored when opened.
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
