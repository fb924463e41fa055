/**
 * vitest globalSetup: one DynamoDB Local (in memory) and one s3rver (in a temp folder) for
 * the whole run. Tests read the endpoints with `inject('dynamoEndpoint')` /
 * `inject('s3Endpoint')` (or `localAws()` from ./aws-fixtures.ts, which also makes a
 * table and a bucket).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDBLocal, suppressNodeVersionWarning } from '../../scripts/local/dynamodb-local.js';
import { startS3Local } from '../../scripts/local/s3-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `http://127.0.0.1:<port>` of the run's DynamoDB Local. */
    dynamoEndpoint: string;
    /** `http://127.0.0.1:<port>` of the run's s3rver. */
    s3Endpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Set before the test workers start, so they inherit it.
  suppressNodeVersionWarning();
  const directory = await mkdtemp(join(tmpdir(), 'panto-s3-'));
  const [dynamo, s3] = await Promise.allSettled([startDynamoDBLocal(), startS3Local({ directory })]);
  if (dynamo.status === 'rejected' || s3.status === 'rejected') {
    if (dynamo.status === 'fulfilled') await dynamo.value.stop();
    if (s3.status === 'fulfilled') await s3.value.stop();
    await rm(directory, { recursive: true, force: true });
    throw dynamo.status === 'rejected' ? dynamo.reason : (s3 as PromiseRejectedResult).reason;
  }
  project.provide('dynamoEndpoint', dynamo.value.endpoint);
  project.provide('s3Endpoint', s3.value.endpoint);
  return async () => {
    await Promise.all([dynamo.value.stop(), s3.value.stop()]);
    await rm(directory, { recursive: true, force: true });
  };
}
