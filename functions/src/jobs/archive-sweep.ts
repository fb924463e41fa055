/**
 * The archive sweeper as the service runs it: on AWS, a scheduled function
 * (`handlers/archive-sweep.ts`, wired with `sst.aws.CronV2`); on the local stack, the same
 * sweep in the server every `PANTO_ARCHIVE_SWEEP_SECONDS` ({@link startArchiveSweeper}).
 * Both archive the sessions with no write for `PANTO_ARCHIVE_AFTER_DAYS` with
 * `sweepColdSessions` (@panto/aws), which pages through the activity index and is safe to
 * run twice at once. Before the sweep, each run makes sure the index holds every session: the
 * one-time `backfillActivityIndexOnce` (a table made before the index existed), which costs
 * one read once it has finished — so no one runs it by hand after a deploy.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { backfillActivityIndexOnce, exposedGarbageCollector, sweepColdSessions, type SweepResult } from '@panto/aws';

export interface ArchiveSweepDeps {
  dynamo: DynamoDBClient;
  s3: S3Client;
  tableName: string;
  /** Where archives go (the export bucket). */
  bucket: string;
  /** Sessions with no write (or restore) for this long are archived. */
  archiveAfterMs: number;
  /** Sessions one run looks at, at most (default: `sweepColdSessions`'s). */
  maxSessions?: number;
  clock?: () => Date;
  /** Where a session whose archive failed is reported (it is tried again next run). Must not throw. */
  log?: (message: string, error: unknown) => void;
}

/** What one run did, in counts: what the scheduled function returns and the local server logs. */
export interface ArchiveSweepSummary {
  archived: number;
  finished: number;
  skipped: number;
  failed: number;
  /** False when the run ran out of time or sessions with more left for the next. */
  complete: boolean;
  /** Sessions this run put into the activity index (the one-time backfill; 0 once it has finished). */
  indexed: number;
}

/** One sweep: archives what has been idle for `archiveAfterMs`, starting no session after `deadline` (epoch ms). */
export async function runArchiveSweep(deps: ArchiveSweepDeps, deadline?: number): Promise<ArchiveSweepSummary> {
  const clock = deps.clock ?? (() => new Date());
  const log = deps.log ?? ((message: string, error: unknown) => console.error(`panto: ${message}`, error));
  const backfill = await backfillActivityIndexOnce({ client: deps.dynamo, tableName: deps.tableName, ...(deadline === undefined ? {} : { deadline }) });
  const collectGarbage = exposedGarbageCollector();
  const result: SweepResult = await sweepColdSessions({
    client: deps.dynamo,
    tableName: deps.tableName,
    s3: { client: deps.s3, bucket: deps.bucket },
    cutoff: new Date(clock().getTime() - deps.archiveAfterMs),
    clock,
    ...(deps.maxSessions === undefined ? {} : { maxSessions: deps.maxSessions }),
    ...(deadline === undefined ? {} : { deadline }),
    ...(collectGarbage ? { collectGarbage } : {}),
  });
  for (const { sessionId, error } of result.failed) log(`archiving session ${sessionId} failed; the next sweep tries again`, error);
  return {
    archived: result.archived,
    finished: result.finished,
    skipped: result.skipped,
    failed: result.failed.length,
    // A backfill that stopped at the deadline (or that another run holds) has more to do.
    complete: result.complete && (backfill.status === 'done' || backfill.status === 'done-before'),
    indexed: backfill.indexed,
  };
}

/** The part of a Lambda context the handler reads. */
export interface SweepContext {
  getRemainingTimeInMillis(): number;
}

/** Time left for the last session a run starts: it stops starting new ones this long before the function's timeout. */
const SWEEP_MARGIN_MS = 3 * 60_000;

/**
 * The scheduled function's handler. Without `deps` (`PANTO_ARCHIVE_AFTER_DAYS` unset) it
 * archives nothing. A run stops starting sessions 3 minutes before the function's timeout;
 * the next run goes on where the index says.
 */
export function archiveSweepHandler(deps: ArchiveSweepDeps | undefined): (event: unknown, context?: SweepContext) => Promise<ArchiveSweepSummary> {
  return async (_event, context) => {
    if (deps === undefined) return { archived: 0, finished: 0, skipped: 0, failed: 0, complete: true, indexed: 0 };
    const clock = deps.clock ?? (() => new Date());
    const deadline = context === undefined ? undefined : clock().getTime() + Math.max(0, context.getRemainingTimeInMillis() - SWEEP_MARGIN_MS);
    return runArchiveSweep(deps, deadline);
  };
}

/** A sweeper running on a timer. */
export interface RunningSweeper {
  /** Stops the timer and waits for a run in progress. Never rejects. */
  stop(): Promise<void>;
}

/**
 * Runs `sweep` at once, then every `everyMs`, in this process (the local stack's server
 * passes `() => runArchiveSweep(deps)`). A run still going when the timer fires is not
 * doubled; a run that fails is reported and the next one tries again.
 *
 * @param sweep One run; its rejection is reported, not thrown.
 * @param report Called once per run with its summary (or null and its error). Must not throw.
 */
export function startArchiveSweeper(
  sweep: () => Promise<ArchiveSweepSummary>,
  everyMs: number,
  report: (summary: ArchiveSweepSummary | null, error?: unknown) => void,
): RunningSweeper {
  let running: Promise<void> | undefined;
  const run = (): void => {
    if (running !== undefined) return;
    running = sweep()
      .then(
        (summary) => report(summary),
        (error: unknown) => report(null, error),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, everyMs);
  timer.unref();
  run();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
