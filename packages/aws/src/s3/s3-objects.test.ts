import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import { ObjectsNotDeletedError } from '../errors.js';
import { deleteObjects, deletePrefix } from './s3-objects.js';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
const client = () => new S3Client({ region: 'eu-west-1', credentials });
const keysOf = (input: unknown): string[] => (input as { Delete: { Objects: { Key: string }[] } }).Delete.Objects.map((object) => object.Key);

describe('deleteObjects', () => {
  it('sends again only the keys S3 failed to delete with a code to retry, until none is left', async () => {
    const s3 = client();
    const mock = mockClient(s3);
    mock
      .on(DeleteObjectsCommand)
      .resolvesOnce({
        Errors: [
          { Key: 'b', Code: 'SlowDown', Message: 'Please reduce your request rate.' },
          { Key: 'c', Code: 'InternalError', Message: 'We encountered an internal error.' },
        ],
      })
      .resolvesOnce({ Errors: [{ Key: 'c', Code: 'InternalError', Message: 'We encountered an internal error.' }] })
      .resolves({});
    await deleteObjects(
      s3,
      ['a', 'b', 'c'].map((key) => ({ bucket: 'bkt', key })),
    );
    const sent = mock.commandCalls(DeleteObjectsCommand).map((call) => keysOf(call.args[0].input));
    expect(sent).toEqual([['a', 'b', 'c'], ['b', 'c'], ['c']]);
  });

  it('gives up after four requests with a transient ObjectsNotDeletedError naming what is left', async () => {
    const s3 = client();
    const mock = mockClient(s3);
    mock.on(DeleteObjectsCommand).resolves({ Errors: [{ Key: 'b', Code: 'ServiceUnavailable', Message: 'Reduce your request rate.' }] });
    const error = await deleteObjects(s3, [
      { bucket: 'bkt', key: 'a' },
      { bucket: 'bkt', key: 'b' },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ObjectsNotDeletedError);
    expect(error).toMatchObject({
      bucket: 'bkt',
      transient: true,
      failures: [{ key: 'b', code: 'ServiceUnavailable' }],
    });
    expect(mock).toHaveReceivedCommandTimes(DeleteObjectsCommand, 4);
  });

  it('does not retry a refusal (AccessDenied): it is a configuration error at once', async () => {
    const s3 = client();
    const mock = mockClient(s3);
    mock.on(DeleteObjectsCommand).resolves({
      Errors: [
        { Key: 'a', Code: 'AccessDenied', Message: 'Access Denied' },
        { Key: 'b', Code: 'SlowDown', Message: 'slow' },
      ],
    });
    const error = await deleteObjects(s3, [
      { bucket: 'bkt', key: 'a' },
      { bucket: 'bkt', key: 'b' },
    ]).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'ObjectsNotDeletedError', transient: false });
    expect((error as Error).message).toBe('S3 did not delete 2 objects of bucket bkt (first: a: AccessDenied Access Denied)');
    expect(mock).toHaveReceivedCommandTimes(DeleteObjectsCommand, 1);
  });
});

describe('deletePrefix', () => {
  it('deletes every listed object but those kept, retrying what S3 asks to retry', async () => {
    const s3 = client();
    const mock = mockClient(s3);
    mock.on(ListObjectsV2Command).resolves({ Contents: [{ Key: 'p/1' }, { Key: 'p/2' }, { Key: 'p/keep' }], IsTruncated: false });
    mock
      .on(DeleteObjectsCommand)
      .resolvesOnce({ Errors: [{ Key: 'p/2', Code: 'InternalError', Message: 'x' }] })
      .resolves({});
    await deletePrefix(s3, 'bkt', 'p/', new Set(['p/keep']));
    expect(mock.commandCalls(DeleteObjectsCommand).map((call) => keysOf(call.args[0].input))).toEqual([['p/1', 'p/2'], ['p/2']]);
  });
});
