/**
 * `npm start` with its emulators' ports pinned (issue 37, item 17): PANTO_DYNAMODB_PORT and
 * PANTO_S3_PORT put the DynamoDB Local and the S3 emulator it starts on those ports, for
 * machines where only some ports may be used. The whole stack, Java and all, in its own process.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import { waitUntil } from '@panto/core/testing';
import { afterEach, expect, it } from 'vitest';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { localS3Client } from '../scripts/local/s3-local.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** A loopback port that is free now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it('starts DynamoDB Local and the S3 emulator on the ports PANTO_DYNAMODB_PORT and PANTO_S3_PORT pin', { timeout: 120_000 }, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'panto-ports-'));
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
  const [dynamoPort, s3Port] = [await freePort(), await freePort()];
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@panto/source', 'scripts/start.ts'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      PORT: '0',
      PANTO_DATA_DIR: dataDir,
      PANTO_DYNAMODB_PORT: String(dynamoPort),
      PANTO_S3_PORT: String(s3Port),
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanup.push(async () => {
    if (child.exitCode === null) child.kill('SIGINT');
    await exited;
  });
  await waitUntil(() => output.includes('panto: listening on') || child.exitCode !== null, { timeoutMs: 90_000, message: 'npm start to listen' });
  expect(output).toContain(`at http://127.0.0.1:${dynamoPort}, bucket`);
  expect(output).toContain(`at http://127.0.0.1:${s3Port})`);
  // The emulators answer there.
  expect((await localDynamoDBClient(`http://127.0.0.1:${dynamoPort}`).send(new ListTablesCommand({}))).TableNames).toContain('panto-sessions');
  expect((await localS3Client(`http://127.0.0.1:${s3Port}`).send(new ListBucketsCommand({}))).Buckets?.map((bucket) => bucket.Name)).toContain('panto-exports');
  child.kill('SIGINT');
  expect(await exited).toBe(0);
});
