/**
 * A sweeper in a process of its own, for test/aws-cold-archive.test.ts to SIGKILL mid-way:
 * it sweeps the table and bucket named in its environment, prints each step as it finishes
 * (`<sessionId> <step>`), and after `PANTO_TEST_HANG_AFTER` waits for its end.
 */
import { sweepColdSessions } from '@panto/aws';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { localS3Client } from '../scripts/local/s3-local.js';

const env = process.env;
const hangAfter = env.PANTO_TEST_HANG_AFTER;
await sweepColdSessions({
  client: localDynamoDBClient(env.PANTO_TEST_DYNAMO!),
  tableName: env.PANTO_TEST_TABLE!,
  s3: { client: localS3Client(env.PANTO_TEST_S3!), bucket: env.PANTO_TEST_BUCKET! },
  cutoff: new Date(Date.now() + 1000),
  claimMs: Number(env.PANTO_TEST_CLAIM_MS ?? 60_000),
  afterStep: async (sessionId, step) => {
    process.stdout.write(`${sessionId} ${step}\n`);
    // Stay alive (a timer keeps the event loop going) until the test kills this process.
    if (step === hangAfter) await new Promise(() => setInterval(() => undefined, 1000));
  },
});
process.stdout.write('done\n');
