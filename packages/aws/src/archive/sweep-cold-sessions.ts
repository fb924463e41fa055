/**
 * The archive sweeper: finds sessions nobody has written to (or restored) since a cutoff and
 * archives each (`archiveSession`). It pages through the sparse `byActivity` index — a
 * Query per shard, `gsi2sk < cutoff`, oldest first — and never scans the table. Every step of
 * an archive is conditional, so two sweepers may run at once (a schedule that fires while the
 * last run is still going): each session is archived once.
 */
import { QueryCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { systemClock } from '@panto/core/store-kit';
import type { S3Location } from '../entries/offload.js';
import { ATTR } from '../table/attributes.js';
import { namesFor, QUERY_COLD } from '../table/expressions.js';
import { ACTIVITY_SHARDS, activityShardPk, GSI_BY_ACTIVITY, SESSION_PK_PREFIX } from '../table/keys.js';
import { isValidSessionId } from '../table/validation.js';
import { archiveSession, type ArchiveOutcome, type ArchiveStep } from './archive-session.js';

export const DEFAULT_SWEEP_MAX_SESSIONS = 1000;
const DEFAULT_SWEEP_CONCURRENCY = 2;
const DEFAULT_SWEEP_PAGE_SIZE = 100;

export interface SweepColdSessionsOptions {
  client: DynamoDBClient;
  tableName: string;
  /** Where archives go (`archive/<sessionId>/…`); its client also reads offloaded texts. */
  s3: S3Location;
  /** Sessions whose last write (or restore) is before this instant are archived. */
  cutoff: Date;
  /** Sessions examined in one run at most (default 1000); the next run goes on. */
  maxSessions?: number;
  /** Epoch milliseconds after which no further session is started (a function's time budget). */
  deadline?: number;
  /** Sessions archived at a time (default 2). */
  concurrency?: number;
  /** Index entries per Query (default 100). */
  pageSize?: number;
  /** How long an archive claim holds unless renewed (default 60 s). */
  claimMs?: number;
  clock?: () => Date;
  /** As for `archiveSession`: a full collection after each part of an archive written. */
  collectGarbage?: () => void;
  /** As for `archiveSession`, with the session: a seam for crash tests. */
  afterStep?: (sessionId: string, step: ArchiveStep) => Promise<void> | void;
}

export interface SweepResult {
  /** Every session looked at, and what became of it. */
  outcomes: ArchiveOutcome[];
  archived: number;
  /** Archives an earlier, interrupted sweep had begun, finished now. */
  finished: number;
  skipped: number;
  /** Sessions whose archive failed (an S3 or DynamoDB error): left whole, tried again next run. */
  failed: Array<{ sessionId: string; error: unknown }>;
  /** False when the run stopped at `maxSessions` or `deadline` with index pages left. */
  complete: boolean;
}

/**
 * Archives the sessions idle since `cutoff`: a page of the `byActivity` index from each shard
 * in turn, each page's sessions archived `concurrency` at a time, until the index has no
 * more before the cutoff, or `maxSessions` were examined, or `deadline` passed. A failure of
 * one session is recorded and the sweep goes on; it never rejects for one.
 *
 * @example
 * const result = await sweepColdSessions({ client, tableName, s3: { client: s3, bucket }, cutoff: new Date(Date.now() - 30 * 86_400_000) });
 */
export async function sweepColdSessions(options: SweepColdSessionsOptions): Promise<SweepResult> {
  const { client, tableName } = options;
  const clock = options.clock ?? systemClock;
  const maxSessions = options.maxSessions ?? DEFAULT_SWEEP_MAX_SESSIONS;
  const concurrency = options.concurrency ?? DEFAULT_SWEEP_CONCURRENCY;
  const result: SweepResult = { outcomes: [], archived: 0, finished: 0, skipped: 0, failed: [], complete: true };
  const cutoff = options.cutoff.toISOString();
  const shards: Array<{ pk: string; startKey: Record<string, AttributeValue> | undefined; done: boolean }> = [];
  for (let shard = 0; shard < ACTIVITY_SHARDS; shard++) shards.push({ pk: activityShardPk(shard), startKey: undefined, done: false });
  let examined = 0;
  const outOfBudget = (): boolean => examined >= maxSessions || (options.deadline !== undefined && clock().getTime() >= options.deadline);

  while (shards.some((shard) => !shard.done)) {
    if (!result.complete) return result;
    for (const shard of shards) {
      if (shard.done) continue;
      if (outOfBudget()) {
        result.complete = false;
        return result;
      }
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: GSI_BY_ACTIVITY,
          KeyConditionExpression: QUERY_COLD,
          ExpressionAttributeNames: namesFor(QUERY_COLD),
          ExpressionAttributeValues: { ':gsi2pk': { S: shard.pk }, ':cutoff': { S: cutoff } },
          Limit: Math.min(options.pageSize ?? DEFAULT_SWEEP_PAGE_SIZE, maxSessions - examined),
          ...(shard.startKey === undefined ? {} : { ExclusiveStartKey: shard.startKey }),
        }),
      );
      shard.startKey = page.LastEvaluatedKey;
      shard.done = page.LastEvaluatedKey === undefined;
      const ids = (page.Items ?? []).flatMap((item) => {
        const id = item[ATTR.pk]?.S?.slice(SESSION_PK_PREFIX.length);
        return id !== undefined && isValidSessionId(id) ? [id] : [];
      });
      examined += ids.length;
      await pool(ids, concurrency, async (sessionId) => {
        // Past the deadline, the rest of the page waits for the next run.
        if (options.deadline !== undefined && clock().getTime() >= options.deadline) {
          result.complete = false;
          return;
        }
        try {
          const outcome = await archiveSession({
            client,
            tableName,
            s3: options.s3,
            sessionId,
            cutoff: options.cutoff,
            clock,
            ...(options.claimMs === undefined ? {} : { claimMs: options.claimMs }),
            ...(options.collectGarbage === undefined ? {} : { collectGarbage: options.collectGarbage }),
            ...(options.afterStep === undefined ? {} : { afterStep: (step: ArchiveStep) => options.afterStep!(sessionId, step) }),
          });
          result.outcomes.push(outcome);
          if (outcome.result === 'archived') result.archived++;
          else if (outcome.result === 'finished') result.finished++;
          else result.skipped++;
        } catch (error) {
          result.failed.push({ sessionId, error });
        }
      });
    }
  }
  return result;
}

/** Runs `work` on every item, at most `limit` at a time. `work` must not reject. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}
