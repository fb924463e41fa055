/**
 * Starts the s3rver S3 emulator on loopback, in a child Node process (it needs
 * `--openssl-legacy-provider`, which only works at process start).
 *
 * @example
 * const s3 = await startS3Local({ directory: '.panto-local/s3' });
 * const client = localS3Client(s3.endpoint);
 * await client.send(new CreateBucketCommand({ Bucket: 'panto' }));
 * // …
 * await s3.stop();
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { EMULATOR_CREDENTIALS, emulatorS3Config } from '@panto/functions/local';
import { suppressNodeVersionWarning, type LocalEmulator } from './dynamodb-local.js';
import { assertPortFree, freePort, killOnExit, OutputTail, stopChild, waitUntilReady } from './child-process.js';

export interface S3LocalOptions {
  /** The port to listen on; 0 or absent picks a free one. */
  port?: number;
  /** Where the emulator keeps buckets and objects (created if missing). */
  directory: string;
}

/** Credentials s3rver accepts. */
export const S3RVER_CREDENTIALS = EMULATOR_CREDENTIALS;

const READY_TIMEOUT_MS = 30_000;

/** Runs s3rver; exits when stdin closes (this process died) or on SIGTERM. */
const CHILD_SOURCE = `
const S3rver = require(process.env.PANTO_S3RVER_MODULE);
const server = new S3rver({
  address: '127.0.0.1',
  port: Number(process.env.PANTO_S3RVER_PORT),
  directory: process.env.PANTO_S3RVER_DIRECTORY,
  silent: true,
});
const stop = () => server.close().catch(() => undefined).finally(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
server.run().then(
  (address) => process.stdout.write('s3rver listening on ' + address.port + '\\n'),
  (error) => { console.error(error && error.stack || error); process.exit(1); },
);
`;

/** Starts s3rver and resolves once it listens. Create buckets through the S3 API. */
export async function startS3Local(options: S3LocalOptions): Promise<LocalEmulator> {
  suppressNodeVersionWarning();
  const directory = resolve(options.directory);
  mkdirSync(directory, { recursive: true });
  const port = options.port === undefined || options.port === 0 ? await freePort() : options.port;
  await assertPortFree(port);
  const child = spawn(process.execPath, ['-e', CHILD_SOURCE], {
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // Without the legacy provider s3rver answers paged listings with a 500 on Node ≥ 17.
      NODE_OPTIONS: '--openssl-legacy-provider',
      PANTO_S3RVER_MODULE: createRequire(import.meta.url).resolve('s3rver'),
      PANTO_S3RVER_PORT: String(port),
      PANTO_S3RVER_DIRECTORY: directory,
    },
  });
  child.on('error', () => {
    // Reported by waitUntilReady.
  });
  const output = new OutputTail(child);
  let listening = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (chunk.toString('utf8').includes('s3rver listening on')) listening = true;
  });
  killOnExit(child);
  try {
    await waitUntilReady(`s3rver (port ${port})`, child, output, async () => listening, {
      timeoutMs: READY_TIMEOUT_MS,
      intervalMs: 50,
    });
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    stop: () => (stopping ??= stopChild(child)),
  };
}

/** An S3 client for s3rver (see `emulatorS3Config`, which the service's clients use too). */
export function localS3Client(endpoint: string): S3Client {
  suppressNodeVersionWarning();
  return new S3Client({ region: 'us-east-1', ...emulatorS3Config(endpoint) });
}
