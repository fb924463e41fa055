import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import { MIN_PART_SIZE, MultipartWriter } from './multipart-writer.js';

const target = {
  Bucket: 'b',
  Key: 'k.jsonl',
  ContentType: 'application/x-ndjson',
  ServerSideEncryption: 'AES256',
} as const;

function setup(): { s3: S3Client; mock: ReturnType<typeof mockClient>; received: Buffer[] } {
  const s3 = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
  const mock = mockClient(s3);
  const received: Buffer[] = [];
  mock.on(CreateMultipartUploadCommand).resolves({ UploadId: 'u-1' });
  mock.on(UploadPartCommand).callsFake(async (input: { PartNumber: number; Body: Uint8Array }) => {
    received[input.PartNumber - 1] = Buffer.from(input.Body); // copy: the writer reuses its buffers
    return { ETag: `"etag-${input.PartNumber}"` };
  });
  mock.on(CompleteMultipartUploadCommand).resolves({});
  mock.on(PutObjectCommand).resolves({});
  return { s3, mock, received };
}

describe('MultipartWriter (mocked S3)', () => {
  it('sends an object smaller than a part as one PutObject with its headers', async () => {
    const { s3, mock } = setup();
    const writer = new MultipartWriter(s3, target);
    await writer.write('héllo\n');
    await writer.write(new Uint8Array([0x61, 0x0a]));
    await writer.end();
    expect(mock).toHaveReceivedCommandTimes(CreateMultipartUploadCommand, 0);
    const put = mock.commandCalls(PutObjectCommand)[0]!.args[0].input as { Body: Uint8Array };
    expect(Buffer.from(put.Body).toString('utf8')).toBe('héllo\na\n');
    expect(mock).toHaveReceivedCommandWith(PutObjectCommand, { ...target, ContentLength: 9 });
    expect(writer.bytes).toBe(9);
  });

  it('runs afterPart once for each full part, once the part before it has uploaded (not for the last part)', async () => {
    const { s3, mock } = setup();
    let uploadsAtEachCall: number[] = [];
    const writer = new MultipartWriter(s3, target, MIN_PART_SIZE, () => {
      uploadsAtEachCall = [...uploadsAtEachCall, mock.commandCalls(UploadPartCommand).length];
    });
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 12; i++) await writer.write(chunk); // 12 MB: two full parts and a last one
    await writer.end();
    expect(mock.commandCalls(UploadPartCommand)).toHaveLength(3);
    expect(uploadsAtEachCall).toEqual([1, 2]);
  });

  it('uploads full parts in order, splitting writes at part boundaries, and completes with every part', async () => {
    const { s3, mock, received } = setup();
    const writer = new MultipartWriter(s3, target);
    const line = `${'é'.repeat(300_000)}\n`; // 600,001 bytes, a multi-byte character across some boundaries
    const expected: string[] = [];
    for (let i = 0; i < 20; i++) {
      expected.push(line);
      await writer.write(line);
    }
    await writer.end();
    expect(mock).toHaveReceivedCommandWith(CreateMultipartUploadCommand, target);
    expect(received).toHaveLength(3);
    expect(received.slice(0, 2).every((part) => part.length === MIN_PART_SIZE)).toBe(true);
    expect(Buffer.concat(received).toString('utf8')).toBe(expected.join(''));
    expect(mock).toHaveReceivedCommandWith(CompleteMultipartUploadCommand, {
      Bucket: 'b',
      Key: 'k.jsonl',
      UploadId: 'u-1',
      MultipartUpload: { Parts: [1, 2, 3].map((n) => ({ ETag: `"etag-${n}"`, PartNumber: n })) },
    });
  });

  it('aborts the multipart upload when told to, after a part failed', async () => {
    const { s3, mock } = setup();
    const failure = Object.assign(new Error('reset'), { name: 'InternalError' });
    mock.on(UploadPartCommand).rejects(failure);
    mock.on(AbortMultipartUploadCommand).resolves({});
    const writer = new MultipartWriter(s3, target);
    const chunk = new Uint8Array(MIN_PART_SIZE);
    await writer.write(chunk);
    await writer.write(chunk);
    await expect(writer.write(chunk).then(() => writer.end())).rejects.toBe(failure);
    await writer.abort();
    expect(mock).toHaveReceivedCommandWith(AbortMultipartUploadCommand, {
      Bucket: 'b',
      Key: 'k.jsonl',
      UploadId: 'u-1',
    });
    expect(mock).toHaveReceivedCommandTimes(CompleteMultipartUploadCommand, 0);
  });
});
