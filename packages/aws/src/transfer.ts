/**
 * `@panto/aws/transfer`: JSONL in and out of S3 — a session exported (and its exports and
 * archives listed with presigned URLs), a JSONL session imported as a new one. Also at the
 * package's root.
 */
export {
  DEFAULT_EXPORT_URL_SECONDS,
  exportSession,
  listExports,
  type ExportSessionOptions,
  type ListedExport,
  type ListExportsOptions,
  type SessionExport,
} from './transfer/export-session.js';
export { importSession, type ImportSessionOptions } from './transfer/import-session.js';
export { exposedGarbageCollector, type GarbageCollection } from './jsonl/session-lines.js';
export { listSessionObjects, type SessionObject } from './s3/session-objects.js';
