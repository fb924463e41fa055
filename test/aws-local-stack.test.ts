import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import { waitUntil } from '@panto/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { startDynamoDBLocal } from '../scripts/local/dynamodb-local.js';
import { localS3Client, startS3Local } from '../scripts/local/s3-local.js';

/** Command lines of the running processes that mention `needle`. */
function processesMentioning(needle: string): string[] {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(needle) && !line.includes('ps -eo'));
}

describe('local emulator launchers', () => {
  it('refuses a port something already listens on instead of reporting that server ready', async () => {
    const port = Number(new URL(inject('dynamoEndpoint')).port); // this run's emulator
    await expect(startDynamoDBLocal({ port })).rejects.toThrow(`port ${port} is already in use`);
    await expect(startS3Local({ port, directory: tmpdir() })).rejects.toThrow(`port ${port} is already in use`);
  });

  it("rejects with the child's own output when Java cannot be started", async () => {
    const saved = process.env.JAVA_HOME;
    process.env.JAVA_HOME = '/nonexistent-jdk';
    try {
      const error = await startDynamoDBLocal().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/DynamoDB Local \(port \d+\) exited before it was ready \(exit code 127\)/);
      expect((error as Error).message).toContain('/nonexistent-jdk/bin/java');
    } finally {
      if (saved === undefined) delete process.env.JAVA_HOME;
      else process.env.JAVA_HOME = saved;
    }
  });

  it('kills the emulators when the process that started them is killed outright', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'panto-launcher-'));
    try {
      const script = `
        import { startDynamoDBLocal } from './scripts/local/dynamodb-local.ts';
        import { startS3Local } from './scripts/local/s3-local.ts';
        const [d, s] = await Promise.all([startDynamoDBLocal({ dataDir: ${JSON.stringify(join(dir, 'db'))} }), startS3Local({ directory: ${JSON.stringify(join(dir, 's3'))} })]);
        console.log(JSON.stringify({ dynamo: d.port, s3: s.port }));
        setInterval(() => {}, 1000);
      `;
      const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: process.cwd(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const ports = await new Promise<{ dynamo: number; s3: number }>((resolve, reject) => {
        let out = '';
        parent.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          const line = out.split('\n').find((l) => l.startsWith('{'));
          if (line !== undefined) resolve(JSON.parse(line) as { dynamo: number; s3: number });
        });
        parent.once('exit', (code) => reject(new Error(`launcher exited with ${String(code)}`)));
      });
      expect(processesMentioning(`-port ${ports.dynamo}`).length).toBeGreaterThan(0);
      expect(processesMentioning(dir).length).toBeGreaterThan(0);
      parent.kill('SIGKILL');
      await waitUntil(() => processesMentioning(`-port ${ports.dynamo}`).length === 0 && processesMentioning(dir).length === 0, {
        message: 'the emulators exited with the process that started them',
        timeoutMs: 20_000,
        intervalMs: 100,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('stops s3rver on stop() and frees its port', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'panto-s3-stop-'));
    try {
      const s3 = await startS3Local({ directory: dir });
      const client = localS3Client(s3.endpoint);
      await client.send(new ListBucketsCommand({}));
      await s3.stop();
      await expect(client.send(new ListBucketsCommand({}))).rejects.toThrow();
      await s3.stop(); // twice is fine
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
