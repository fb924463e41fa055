/**
 * The DynamoDB Streams consumer of the sessions table (see ../jobs/ttl-cleanup.ts): purges the
 * entry items, offloaded texts and exports of sessions whose META item (or tombstone) TTL
 * deleted. Linked to the
 * table and bucket only; clients and config are built once per container, at module scope.
 */
import { purgeSessionItems } from '@panto/aws';
import { createAwsClients } from '../aws-clients.js';
import { lambdaStorageConfig } from '../config.js';
import { ttlCleanupHandler, type DynamoDBBatchResponse, type DynamoDBStreamEvent } from '../jobs/ttl-cleanup.js';

const { tableName, bucket, aws } = lambdaStorageConfig();
const { dynamo, s3 } = createAwsClients(aws);

export const handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> = ttlCleanupHandler({
  purge: (sessionId) => purgeSessionItems({ client: dynamo, tableName, sessionId, s3: { client: s3, bucket }, exports: { client: s3, bucket } }),
});
