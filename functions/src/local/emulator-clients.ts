/** AWS clients pointed at the local emulators (DynamoDB Local, s3rver). Local stack and tests only. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { AwsClients } from '../aws-clients.js';
import type { AwsEndpoints } from '../config.js';
import { httpPool, LOCAL_MAX_SOCKETS } from '../http-pool.js';

/** Credentials the S3 emulator (s3rver) accepts; DynamoDB Local accepts any. */
export const EMULATOR_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

/**
 * What an S3 client needs to talk to the emulator at `endpoint`: its credentials,
 * path-style addressing, and checksums only where an operation requires them (with the
 * SDK default, WHEN_SUPPORTED, streamed uploads reach s3rver with their chunk framing
 * stored inside the object).
 */
export function emulatorS3Config(endpoint: string): S3ClientConfig {
  return {
    endpoint,
    credentials: EMULATOR_CREDENTIALS,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

/**
 * The DynamoDB and S3 clients, each on its emulator when `endpoints` names one (else on AWS),
 * each pooling {@link LOCAL_MAX_SOCKETS} connections: this one process serves every turn at once.
 */
export function localAwsClients(endpoints: AwsEndpoints): AwsClients {
  const pool = httpPool(LOCAL_MAX_SOCKETS);
  const dynamo = new DynamoDBClient({
    region: endpoints.region,
    ...pool,
    ...(endpoints.dynamodb ? { endpoint: endpoints.dynamodb, credentials: EMULATOR_CREDENTIALS } : {}),
  });
  const s3 = new S3Client({ region: endpoints.region, ...pool, ...(endpoints.s3 ? emulatorS3Config(endpoints.s3) : {}) });
  return { dynamo, s3 };
}
