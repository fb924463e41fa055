import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { AwsEndpoints } from './config.js';
import { httpPool, LAMBDA_MAX_SOCKETS } from './http-pool.js';

export interface AwsClients {
  dynamo: DynamoDBClient;
  s3: S3Client;
}

/**
 * The DynamoDB and S3 clients for AWS. Build them once, at module scope, and share them
 * between requests; each pools {@link LAMBDA_MAX_SOCKETS} connections. (The local stack's,
 * pointed at the emulators, are in `local/emulator-clients.ts`.)
 */
export function createAwsClients(endpoints: Pick<AwsEndpoints, 'region'>): AwsClients {
  const config = { region: endpoints.region, ...httpPool(LAMBDA_MAX_SOCKETS) };
  return { dynamo: new DynamoDBClient(config), s3: new S3Client(config) };
}
