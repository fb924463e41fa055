import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { AwsEndpoints } from './config.js';

export interface AwsClients {
  dynamo: DynamoDBClient;
  s3: S3Client;
}

/**
 * The DynamoDB and S3 clients for AWS. Build them once, at module scope, and share them
 * between requests. (The local stack's, pointed at the emulators, are in `local/emulator-clients.ts`.)
 */
export function createAwsClients(endpoints: Pick<AwsEndpoints, 'region'>): AwsClients {
  return { dynamo: new DynamoDBClient({ region: endpoints.region }), s3: new S3Client({ region: endpoints.region }) };
}
