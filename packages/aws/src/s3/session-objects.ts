/**
 * A session's JSONL objects in the bucket — the exports a user asked for
 * (`exports/<sessionId>/`) and the archives the sweeper wrote (`archive/<sessionId>/`) —
 * named so that a listing tells what each holds without reading it:
 * `<prefix><UTC yyyymmddThhmmss.sssZ>-<entries>-entries.jsonl`. Both are keyed by the session
 * alone, so whatever deletes a session — `deleteSession`, or the TTL cleanup, which learns
 * only the session id from the table's keys-only stream — finds them.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { listObjectPages } from './s3-objects.js';

/** Where a session's exports go. */
export function exportPrefix(sessionId: string): string {
  return `exports/${sessionId}/`;
}

/** Where a session's archives go. */
export function archivePrefix(sessionId: string): string {
  return `archive/${sessionId}/`;
}

/** `exports/<sessionId>/<UTC timestamp>-<entries>-entries.jsonl`. */
export function exportKey(sessionId: string, at: Date, entries: number): string {
  return `${exportPrefix(sessionId)}${objectName(at, entries)}`;
}

/** `archive/<sessionId>/<UTC timestamp>-<entries>-entries.jsonl`. */
export function archiveKey(sessionId: string, at: Date, entries: number): string {
  return `${archivePrefix(sessionId)}${objectName(at, entries)}`;
}

function objectName(at: Date, entries: number): string {
  return `${at.toISOString().replace(/[-:]/g, '')}-${entries}-entries.jsonl`;
}

/** The name's time and entry count; exports made before the count was in the name have only the time. */
const OBJECT_NAME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\.(\d{3})Z(?:-(\d+)-entries)?\.jsonl$/;

/** One export or archive of a session, as listed. */
export interface SessionObject {
  kind: 'export' | 'archive';
  bucket: string;
  key: string;
  /** ISO-8601: when it was written (from its name). */
  createdAt: string;
  bytes: number;
  /** Entries it holds; null for an export named before the count was part of the name. */
  entries: number | null;
  /** Its S3 storage class (`STANDARD`, `GLACIER_IR`, …): the bucket's lifecycle tiers objects by age. */
  storageClass: string;
}

/**
 * Every export and archive of a session in `bucket`, newest first: two paginated listings,
 * no request per object (the name carries the time and entry count).
 */
export async function listSessionObjects(s3: S3Client, bucket: string, sessionId: string): Promise<SessionObject[]> {
  const objects: SessionObject[] = [];
  for (const [kind, prefix] of [
    ['export', exportPrefix(sessionId)],
    ['archive', archivePrefix(sessionId)],
  ] as const) {
    for await (const page of listObjectPages(s3, bucket, prefix)) {
      for (const object of page) {
        const key = object.Key;
        if (key === undefined) continue;
        const match = OBJECT_NAME.exec(key.slice(prefix.length));
        if (match === null) continue; // not one of ours (a stray upload)
        const [, year, month, day, hour, minute, second, ms, entries] = match;
        objects.push({
          kind,
          bucket,
          key,
          createdAt: `${year}-${month}-${day}T${hour}:${minute}:${second}.${ms}Z`,
          bytes: object.Size ?? 0,
          entries: entries === undefined ? null : Number(entries),
          storageClass: object.StorageClass ?? 'STANDARD',
        });
      }
    }
  }
  return objects.sort((a, b) => (a.createdAt === b.createdAt ? a.key.localeCompare(b.key) : a.createdAt < b.createdAt ? 1 : -1));
}
