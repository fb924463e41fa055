/**
 * The scheduled archive sweeper, when PANTO_ARCHIVE_AFTER_DAYS is set: archives to S3 the
 * sessions nobody wrote to for that long (@panto/aws sweepColdSessions), every
 * PANTO_ARCHIVE_SWEEP_SECONDS (default 3600).
 */
import { LAMBDA, STREAMING_NODE_OPTIONS } from './lambda';
import { bucket, table } from './storage';

const archiveAfterDays = process.env.PANTO_ARCHIVE_AFTER_DAYS;

if (archiveAfterDays) {
  const sweepMinutes = Math.max(1, Math.round(Number(process.env.PANTO_ARCHIVE_SWEEP_SECONDS || 3600) / 60));
  new sst.aws.CronV2('PantoArchiveSweep', {
    schedule: `rate(${sweepMinutes} ${sweepMinutes === 1 ? 'minute' : 'minutes'})`,
    function: {
      handler: 'functions/src/handlers/archive-sweep.handler',
      ...LAMBDA,
      timeout: '15 minutes',
      memory: '512 MB',
      environment: { ...STREAMING_NODE_OPTIONS, PANTO_ARCHIVE_AFTER_DAYS: archiveAfterDays },
      link: [table, bucket],
    },
  });
}
