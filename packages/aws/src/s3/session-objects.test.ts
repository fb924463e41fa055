import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import { listSessionObjects } from './session-objects.js';

describe('listSessionObjects (mocked S3)', () => {
  it('lists exports and archives newest first, their time and entry count from the key, paging each prefix and skipping strays', async () => {
    const s3 = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    const mock = mockClient(s3);
    mock
      .on(ListObjectsV2Command, { Prefix: 'exports/s/' })
      .resolvesOnce({
        Contents: [
          { Key: 'exports/s/20260101T000000.000Z.jsonl', Size: 10 },
          { Key: 'exports/s/20260301T000000.000Z-7-entries.jsonl', Size: 70, StorageClass: 'GLACIER_IR' },
        ],
        IsTruncated: true,
        NextContinuationToken: 't',
      })
      .resolvesOnce({ Contents: [{ Key: 'exports/s/stray.txt', Size: 1 }], IsTruncated: false });
    mock.on(ListObjectsV2Command, { Prefix: 'archive/s/' }).resolves({ Contents: [{ Key: 'archive/s/20260201T101112.131Z-5-entries.jsonl', Size: 50 }] });

    expect(await listSessionObjects(s3, 'b', 's')).toEqual([
      {
        kind: 'export',
        bucket: 'b',
        key: 'exports/s/20260301T000000.000Z-7-entries.jsonl',
        createdAt: '2026-03-01T00:00:00.000Z',
        bytes: 70,
        entries: 7,
        storageClass: 'GLACIER_IR',
      },
      {
        kind: 'archive',
        bucket: 'b',
        key: 'archive/s/20260201T101112.131Z-5-entries.jsonl',
        createdAt: '2026-02-01T10:11:12.131Z',
        bytes: 50,
        entries: 5,
        storageClass: 'STANDARD',
      },
      {
        kind: 'export',
        bucket: 'b',
        key: 'exports/s/20260101T000000.000Z.jsonl',
        createdAt: '2026-01-01T00:00:00.000Z',
        bytes: 10,
        entries: null,
        storageClass: 'STANDARD',
      },
    ]);
    expect(mock).toHaveReceivedCommandWith(ListObjectsV2Command, {
      Bucket: 'b',
      Prefix: 'exports/s/',
      ContinuationToken: 't',
    });
  });
});
