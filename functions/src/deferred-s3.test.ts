import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { builtS3Client, deferredS3Client, serviceAwsClients } from './deferred-s3.js';

const s3Mock = mockClient(S3Client);
afterEach(() => s3Mock.reset());

describe('deferredS3Client', () => {
  it('builds the client at its first send, once, with its configuration, and sends through it', async () => {
    s3Mock.on(ListObjectsV2Command).resolves({ KeyCount: 0 });
    const built: S3Client[] = [];
    const s3 = deferredS3Client({ region: 'eu-west-1' }, (client) => built.push(client));
    expect(built).toEqual([]);
    expect(() => s3.config).toThrow(/built at its first call/);
    expect((await s3.send(new ListObjectsV2Command({ Bucket: 'b' }))).KeyCount).toBe(0);
    await s3.send(new ListObjectsV2Command({ Bucket: 'b' }));
    expect(built).toHaveLength(1);
    expect(built[0]).toBeInstanceOf(S3Client);
    expect(await built[0]?.config.region()).toBe('eu-west-1');
    // Built, it reads as the client it is.
    expect(await s3.config.region()).toBe('eu-west-1');
    expect(await builtS3Client(s3)).toBe(built[0]);
    expect(s3Mock.commandCalls(ListObjectsV2Command)).toHaveLength(2);
  });

  it('is built by builtS3Client for a caller that needs the client itself; any other client is returned as it is', async () => {
    const s3 = deferredS3Client({ region: 'us-east-1' });
    const client = await builtS3Client(s3);
    expect(client).toBeInstanceOf(S3Client);
    expect(await builtS3Client(s3)).toBe(client);
    expect(await builtS3Client(client)).toBe(client);
    // Not a thenable: it can be returned from an async function.
    expect(await Promise.resolve(deferredS3Client({ region: 'us-east-1' }))).toBeDefined();
  });

  it('serviceAwsClients instruments DynamoDB at once and S3 as it is built', async () => {
    const instrumented: string[] = [];
    const { dynamo, s3 } = serviceAwsClients({ region: 'us-east-1' }, (client) => instrumented.push(client.constructor.name));
    expect(instrumented).toEqual(['DynamoDBClient']);
    expect(dynamo.constructor.name).toBe('DynamoDBClient');
    await builtS3Client(s3);
    expect(instrumented).toEqual(['DynamoDBClient', 'S3Client']);
  });
});
