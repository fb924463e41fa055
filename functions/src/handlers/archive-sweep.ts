/**
 * The scheduled archive sweeper (`sst.aws.CronV2` in sst.config.ts): archives the sessions
 * nobody has written to for `PANTO_ARCHIVE_AFTER_DAYS` (see ../jobs/archive-sweep.ts). Linked to
 * the table and bucket only; clients and config are built once per container, at module scope.
 */
import { archiveSweepHandler, type ArchiveSweepSummary, type SweepContext } from '../jobs/archive-sweep.js';
import { createAwsClients } from '../aws-clients.js';
import { lambdaArchiveSweepConfig } from '../config.js';

const { tableName, bucket, aws, archiveAfterMs } = lambdaArchiveSweepConfig();
const { dynamo, s3 } = createAwsClients(aws);

export const handler: (event: unknown, context?: SweepContext) => Promise<ArchiveSweepSummary> = archiveSweepHandler(
  archiveAfterMs === undefined ? undefined : { dynamo, s3, tableName, bucket, archiveAfterMs },
);
