import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { AwsEndpoints } from './config.js';

/** Credentials the S3 emulator (s3rver) accepts; DynamoDB Local accepts any. */
const EMULATOR_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface AwsClients {
  dynamo: DynamoDBClient;
  s3: S3Client;
}

/**
 * The DynamoDB and S3 clients, for AWS or for the local emulators. Build them once, at
 * module scope, and share them between requests.
 */
export function createAwsClients(endpoints: AwsEndpoints): AwsClients {
  const dynamo = new DynamoDBClient({
    region: endpoints.region,
    ...(endpoints.dynamodb ? { endpoint: endpoints.dynamodb, credentials: EMULATOR_CREDENTIALS } : {}),
  });
  const s3 = new S3Client({
    region: endpoints.region,
    ...(endpoints.s3
      ? {
          endpoint: endpoints.s3,
          credentials: EMULATOR_CREDENTIALS,
          forcePathStyle: true,
          // With the default (WHEN_SUPPORTED), streamed uploads reach s3rver with their
          // chunk framing stored inside the object.
          requestChecksumCalculation: 'WHEN_REQUIRED' as const,
          responseChecksumValidation: 'WHEN_REQUIRED' as const,
        }
      : {}),
  });
  return { dynamo, s3 };
}
