/**
 * Reading what a test's table and bucket hold, for assertions (see aws-fixtures.ts for the
 * table and bucket): a session's partition, the keys under a prefix, an object's bytes.
 */
import { QueryCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { LocalAws } from './aws-fixtures.js';

/** The sort keys of a session's partition, in order (one consistent Query: a test's sessions fit one page). */
export async function partitionSks({ dynamo, tableName }: Pick<LocalAws, 'dynamo' | 'tableName'>, sessionId: string): Promise<string[]> {
  const page = await dynamo.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': { S: `SESSION#${sessionId}` } },
      ConsistentRead: true,
    }),
  );
  return (page.Items ?? []).map((item) => item.sk?.S ?? '?');
}

/** The keys of the bucket's objects under `prefix` (one listing: a test's objects fit one page). */
export async function objectKeys({ s3, bucket }: Pick<LocalAws, 's3' | 'bucket'>, prefix: string): Promise<string[]> {
  const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (page.Contents ?? []).map((object) => object.Key ?? '?');
}

/** An object's bytes. */
export async function objectBytes({ s3, bucket }: Pick<LocalAws, 's3' | 'bucket'>, key: string): Promise<Buffer> {
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await object.Body!.transformToByteArray());
}
