/**
 * `npm start`'s first-run failures: a port in use and a missing Java are told in words, with
 * what to do, before any emulator starts, and without a stack trace.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { displayDataDir, findJava, javaMissingMessage, parseJavaVersion } from '../scripts/local/preflight.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let temp: string;
beforeEach(async () => {
  temp = await mkdtemp(join(tmpdir(), 'panto-start-'));
});
afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

/** Runs scripts/start.ts as `npm start` does (after its install and build steps). */
function start(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--conditions=@panto/source', 'scripts/start.ts'],
      { cwd: ROOT, env: { HOME: temp, PANTO_DATA_DIR: join(temp, 'data'), ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

async function listen(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('no port');
  return { server, port: address.port };
}

/** An HTTP server on loopback answering `answer(url)` (content type, body) with 200, else 404. */
async function httpServer(answer: (url: string) => [string, string] | undefined): Promise<{ server: HttpServer; port: number }> {
  const server = createHttpServer((request, response) => {
    const found = answer(request.url ?? '');
    response.writeHead(found === undefined ? 404 : 200, { 'content-type': found?.[0] ?? 'text/plain' });
    response.end(found?.[1] ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, port: (server.address() as { port: number }).port };
}

describe('npm start before it starts anything', { timeout: 90_000 }, () => {
  it('says the port is in use and how to choose another, without starting the emulators', async () => {
    const { server, port } = await listen();
    try {
      const result = await start({ PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: String(port) });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`port ${port} is already in use`);
      expect(result.stderr).toContain(`PORT=${port + 1} npm start`);
      expect(result.stderr).not.toContain('starting DynamoDB Local');
      expect(result.stderr).not.toMatch(/^\s+at /m);
    } finally {
      server.close();
    }
  });

  it('names what holds the port when it can tell: another npm start of panto, or the Vite dev server of npx sst dev', async () => {
    const path = process.env.PATH ?? '/usr/bin:/bin';
    const panto = await httpServer((url) => (url === '/health' ? ['application/json', '{"status":"ok","version":"0.1.0","table":"ok"}'] : undefined));
    const vite = await httpServer((url) => (url === '/@vite/client' ? ['text/javascript', 'import "/@vite/env";'] : undefined));
    try {
      const byPanto = await start({ PATH: path, PORT: String(panto.port) });
      expect(byPanto.code).toBe(1);
      expect(byPanto.stderr).toContain(
        `port ${panto.port} is already in use by panto's local stack (another npm start: http://127.0.0.1:${panto.port}/health answers)`,
      );
      const byVite = await start({ PATH: path, PORT: String(vite.port) });
      expect(byVite.stderr).toContain(`port ${vite.port} is already in use by a Vite dev server (npx sst dev runs the web client's there`);
      expect(byVite.stderr).toContain('npm start and npx sst dev run side by side when npm start has another port.');
      expect(byVite.stderr).toContain(`PORT=${vite.port + 1} npm start`);
    } finally {
      panto.server.close();
      vite.server.close();
    }
  });

  it('says a pinned emulator port is in use (PANTO_DYNAMODB_PORT, PANTO_S3_PORT), or pinned twice, before starting anything', async () => {
    const { server, port } = await listen();
    const path = process.env.PATH ?? '/usr/bin:/bin';
    try {
      const dynamo = await start({ PATH: path, PORT: '0', PANTO_DYNAMODB_PORT: String(port) });
      expect(dynamo.code).toBe(1);
      expect(dynamo.stderr).toContain(`PANTO_DYNAMODB_PORT: port ${port} is already in use.`);
      expect(dynamo.stderr).toContain(`PANTO_DYNAMODB_PORT=${port + 1} npm start, or unset PANTO_DYNAMODB_PORT for a free port`);
      expect(dynamo.stderr).not.toContain('starting DynamoDB Local');
      const s3 = await start({ PATH: path, PORT: '0', PANTO_S3_PORT: String(port) });
      expect(s3.stderr).toContain(`PANTO_S3_PORT: port ${port} is already in use.`);
      const twice = await start({ PATH: path, PORT: '0', PANTO_DYNAMODB_PORT: '4567', PANTO_S3_PORT: '4567' });
      expect(twice.stderr).toContain('PANTO_DYNAMODB_PORT and PANTO_S3_PORT are both 4567: DynamoDB Local and the S3 emulator need a port each.');
      const bad = await start({ PATH: path, PORT: '0', PANTO_S3_PORT: 'nine' });
      expect(bad.stderr).toContain('PANTO_S3_PORT must be an integer from 0 to 65535, not "nine"');
      for (const result of [dynamo, s3, twice, bad]) expect(result.stderr).not.toMatch(/^\s+at /m);
    } finally {
      server.close();
    }
  });

  it('without Java says what to install or how to use PANTO_DYNAMODB_ENDPOINT, and prints no stack trace', async () => {
    // PATH holds no java (an empty folder); node itself is run by its absolute path.
    const result = await start({ PATH: temp, PORT: '0' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DynamoDB Local needs Java 17');
    expect(result.stderr).toContain('apt-get install openjdk-17-jre-headless');
    expect(result.stderr).toContain('PANTO_DYNAMODB_ENDPOINT=');
    expect(result.stderr).not.toContain('starting DynamoDB Local');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });
});

describe('npm start with an old Java', { timeout: 90_000 }, () => {
  it('says which Java it found and what to install', async () => {
    const java = join(temp, 'java');
    await writeFile(java, '#!/bin/sh\necho \'openjdk version "11.0.2" 2019-01-15\' >&2\n');
    await chmod(java, 0o755);
    const result = await start({ PATH: temp, PORT: '0' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`DynamoDB Local needs Java 17 or later, and ${java} is Java 11.`);
    expect(result.stderr).toContain('apt-get install openjdk-17-jre-headless');
    expect(result.stderr).not.toContain('starting DynamoDB Local');
  });
});

describe('preflight helpers', () => {
  it('reads the major version of java -version, old style too', () => {
    expect(parseJavaVersion('openjdk version "17.0.15" 2025-04-15')).toBe(17);
    expect(parseJavaVersion('java version "1.8.0_392"')).toBe(8);
    expect(parseJavaVersion('openjdk version "21" 2023-09-19')).toBe(21);
    expect(parseJavaVersion('nonsense')).toBeUndefined();
  });

  it('finds no java on a PATH without one, and names a JAVA_HOME without bin/java', () => {
    expect(findJava({ PATH: temp })).toBeUndefined();
    expect(findJava({ JAVA_HOME: temp, PATH: process.env.PATH ?? '' })).toBeUndefined();
    expect(javaMissingMessage({ JAVA_HOME: temp })).toContain(`JAVA_HOME is ${temp} but it has no bin/java`);
  });

  it('prints a data folder outside the working folder as an absolute path, one inside it as relative', () => {
    expect(displayDataDir('/srv/data/panto', '/home/ada/panto')).toBe('/srv/data/panto');
    expect(displayDataDir('/home/ada/data', '/home/ada/panto')).toBe('/home/ada/data');
    expect(displayDataDir('/home/ada/panto/.panto-local', '/home/ada/panto')).toBe('.panto-local');
    expect(displayDataDir('/home/ada/panto', '/home/ada/panto')).toBe('.');
  });
});
