/**
 * A streaming S3 upload that holds at most two part buffers, reused: one being filled while
 * the other uploads. Memory stays the same whatever the object's size — no per-part
 * allocation for the garbage collector to fall behind on.
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';

/** S3's minimum part size (all parts but the last). */
export const MIN_PART_SIZE = 5 * 1024 * 1024;

export interface ObjectTarget {
  Bucket: string;
  Key: string;
  ContentType: string;
  ServerSideEncryption: 'AES256';
}

export class MultipartWriter {
  readonly #s3: S3Client;
  readonly #target: ObjectTarget;
  readonly #partSize: number;
  readonly #buffers: Buffer[] = [];
  /** The upload of each buffer's last part, while it may still be running. */
  readonly #uploads: Array<Promise<void> | undefined> = [undefined, undefined];
  readonly #parts: CompletedPart[] = [];
  #current = 0;
  #filled = 0;
  #uploadId: string | undefined;
  #partCount = 0;
  #bytes = 0;

  readonly #afterPart: (() => void) | undefined;

  /** `afterPart` runs each time a part has been handed to S3 and the one before it is done (a full GC, say). */
  constructor(s3: S3Client, target: ObjectTarget, partSize = MIN_PART_SIZE, afterPart?: () => void) {
    if (partSize < MIN_PART_SIZE) throw new RangeError(`partSize must be at least ${MIN_PART_SIZE}`);
    this.#s3 = s3;
    this.#target = target;
    this.#partSize = partSize;
    this.#afterPart = afterPart;
    this.#buffers.push(Buffer.allocUnsafe(partSize));
  }

  /** The object's key. */
  get key(): string {
    return this.#target.Key;
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.#bytes;
  }

  async write(chunk: string | Uint8Array): Promise<void> {
    if (typeof chunk === 'string') {
      const length = Buffer.byteLength(chunk);
      if (this.#filled + length <= this.#partSize) {
        this.#buffers[this.#current]!.write(chunk, this.#filled, 'utf8');
        this.#filled += length;
        this.#bytes += length;
        return;
      }
      chunk = Buffer.from(chunk, 'utf8'); // only a string that straddles a part boundary is copied
    }
    for (let offset = 0; offset < chunk.length; ) {
      if (this.#filled === this.#partSize) await this.#flush();
      const n = Math.min(this.#partSize - this.#filled, chunk.length - offset);
      this.#buffers[this.#current]!.set(chunk.subarray(offset, offset + n), this.#filled);
      this.#filled += n;
      this.#bytes += n;
      offset += n;
    }
  }

  /** Completes the object: one PutObject if it fit one part, else the multipart upload's last part and completion. */
  async end(): Promise<void> {
    const body = this.#buffers[this.#current]!.subarray(0, this.#filled);
    if (this.#uploadId === undefined) {
      await this.#s3.send(new PutObjectCommand({ ...this.#target, Body: body, ContentLength: body.length }));
      return;
    }
    if (this.#filled > 0) this.#startPart(body);
    await Promise.all(this.#uploads);
    this.#parts.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
    await this.#s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.#target.Bucket,
        Key: this.#target.Key,
        UploadId: this.#uploadId,
        MultipartUpload: { Parts: this.#parts },
      }),
    );
  }

  /** Gives up: aborts the multipart upload, if one was started, so no parts are left behind. */
  async abort(): Promise<void> {
    await Promise.allSettled(this.#uploads);
    if (this.#uploadId === undefined) return;
    await this.#s3.send(new AbortMultipartUploadCommand({ Bucket: this.#target.Bucket, Key: this.#target.Key, UploadId: this.#uploadId }));
  }

  /** Uploads the full current buffer and switches to the other one once its own upload is done. */
  async #flush(): Promise<void> {
    if (this.#uploadId === undefined) {
      const { UploadId } = await this.#s3.send(new CreateMultipartUploadCommand(this.#target));
      if (UploadId === undefined) throw new Error('S3 CreateMultipartUpload returned no UploadId');
      this.#uploadId = UploadId;
    }
    this.#startPart(this.#buffers[this.#current]!.subarray(0, this.#filled));
    this.#current = 1 - this.#current;
    this.#buffers[this.#current] ??= Buffer.allocUnsafe(this.#partSize);
    await this.#uploads[this.#current];
    this.#filled = 0;
    this.#afterPart?.();
  }

  #startPart(body: Buffer): void {
    const partNumber = ++this.#partCount;
    const upload = this.#s3
      .send(
        new UploadPartCommand({
          Bucket: this.#target.Bucket,
          Key: this.#target.Key,
          UploadId: this.#uploadId,
          PartNumber: partNumber,
          Body: body,
          ContentLength: body.length,
        }),
      )
      .then(({ ETag }) => {
        this.#parts.push({ ETag, PartNumber: partNumber });
      });
    upload.catch(() => undefined); // awaited by #flush, end or abort; this only silences an early rejection
    this.#uploads[this.#current] = upload;
  }
}
