/** Fixtures for integration tests on the run's DynamoDB Local and s3rver (see local-aws.ts). */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { createTable } from '@panto/aws';
import { inject } from 'vitest';
import { localDynamoDBClient } from '../../scripts/local/dynamodb-local.js';
import { localS3Client } from '../../scripts/local/s3-local.js';

/** Clients on the run's emulators, a fresh table and a fresh bucket. */
export interface LocalAws {
  dynamo: DynamoDBClient;
  s3: S3Client;
  tableName: string;
  bucket: string;
}

let counter = 0;

/**
 * Makes clients on the run's emulators (call it inside a test or hook: it uses `inject`),
 * and creates a table and a bucket named after `name` for this test file alone.
 */
export async function localAws(name: string): Promise<LocalAws> {
  const dynamo = localDynamoDBClient(inject('dynamoEndpoint'));
  const s3 = localS3Client(inject('s3Endpoint'));
  const suffix = `${process.pid}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;
  const tableName = `${name}-${suffix}`;
  const bucket = `${name}-${suffix}`.toLowerCase().slice(0, 63);
  await Promise.all([createTable({ client: dynamo, tableName }), s3.send(new CreateBucketCommand({ Bucket: bucket }))]);
  return { dynamo, s3, tableName, bucket };
}

/** Calls `make` once, on first use, and shares the result. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | undefined;
  return () => (value ??= make());
}

/** Counts the commands a client sends from now on, by command name (`PutItemCommand`, …). */
export function countCommands(client: DynamoDBClient | S3Client): Map<string, number> {
  const counts = new Map<string, number>();
  (client as DynamoDBClient).middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '?';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: `countCommands-${++counter}` },
  );
  return counts;
}

/**
 * A client on the run's DynamoDB Local whose every `commandName` call fails before it is
 * sent (a process that dies at that step): to leave an operation half done.
 */
export function dynamoFailingOn(commandName: string): DynamoDBClient {
  const client = localDynamoDBClient(inject('dynamoEndpoint'));
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === commandName) throw new Error(`crashed before ${commandName}`);
      return next(args);
    },
    { step: 'initialize', name: `failOn-${commandName}` },
  );
  return client;
}
