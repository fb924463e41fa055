/**
 * A session's copies: exporting it as JSONL to S3 (and listing its exports and archives),
 * importing one as a new session, and forking a new session from an entry of it. The JSONL
 * transfer (`@panto/aws/transfer`: its writer, the multipart upload, the presigner) is loaded
 * by the first export or import: no part of a cold start.
 */
import type { ListedExport, SessionExport } from '@panto/aws/transfer';
import { SessionCorruptError } from '@panto/core/agent-kit';
import { builtS3Client } from '../deferred-s3.js';
import { asEntryField, invalidSessionLog } from '../errors.js';
import { openStore, type SessionContext, type SessionSummary, storeBucket, storeTtl, summaryOf } from './session-context.js';

export type TransferService = ReturnType<typeof transferService>;

/** `@panto/aws/transfer`: loaded by the first export or import, from the module cache after. */
const transfer = (): Promise<typeof import('@panto/aws/transfer')> => import('@panto/aws/transfer');

export function transferService(context: SessionContext) {
  const { dynamo, tableName, s3, bucket } = context;
  return {
    /** A new session of `owner` holding the path to `entryId`; the session itself is not changed. */
    async fork(owner: string, sessionId: string, entryId: string): Promise<SessionSummary> {
      const store = await openStore(context, owner, sessionId);
      const fork = await store.fork(entryId).catch(asEntryField('entry_id'));
      return summaryOf(context, fork.metadata());
    },

    /**
     * A new session of `owner` from a JSONL session log (an export), under a new id: the
     * header's id is returned as `importedFrom`, never kept, so that the outcome cannot tell
     * whether some session (another owner's, a deleted one) has it. A line that is not a
     * session log line is a 400 naming it, and nothing is created. A request body is whole, so
     * its last line is read as a line even without a newline — never dropped as a torn one, as
     * a file's is.
     */
    async import(owner: string, received: Uint8Array): Promise<SessionSummary & { importedFrom: string }> {
      const body = received.length > 0 && received[received.length - 1] !== 0x0a ? Buffer.concat([received, Buffer.from('\n')]) : received;
      let importedFrom = '';
      const { importSession } = await transfer();
      const store = await importSession({
        dynamo,
        tableName,
        owner,
        ...storeBucket(context),
        source: { body, name: 'body' },
        onHeader: (header) => {
          importedFrom = header.id;
        },
        cache: context.cache,
        ...storeTtl(context),
      }).catch((error: unknown) => {
        throw error instanceof SessionCorruptError ? invalidSessionLog(error, { joinedLines: isJoinedLines(body) }) : error;
      });
      return { ...summaryOf(context, store.metadata()), importedFrom };
    },

    /** Exports the session (restoring it first if it is archived); the object is kept as an archive. */
    async export(owner: string, sessionId: string, expiresIn: number): Promise<SessionExport> {
      const { exportSession, exposedGarbageCollector } = await transfer();
      // The presigner reads the client's configuration: a deferred client is built first.
      const collectGarbage = exposedGarbageCollector();
      return exportSession({
        dynamo,
        tableName,
        s3: await builtS3Client(s3),
        bucket,
        owner,
        sessionId,
        expiresIn,
        ...(collectGarbage ? { collectGarbage } : {}),
      });
    },

    /** The session's exports and archives, newest first, with fresh download URLs (an archived session stays archived). */
    async exports(owner: string, sessionId: string, expiresIn: number): Promise<ListedExport[]> {
      const { listExports } = await transfer();
      return listExports({ dynamo, tableName, s3: await builtS3Client(s3), bucket, owner, sessionId, expiresIn });
    },
  };
}

/** Whether a body is one line of JSON objects run together: a log whose newlines were stripped (`curl -d @file`). */
function isJoinedLines(body: Uint8Array): boolean {
  return body.indexOf(0x0a) === body.length - 1 && Buffer.from(body.buffer, body.byteOffset, body.byteLength).includes('}{');
}
