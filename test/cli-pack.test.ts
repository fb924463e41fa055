/**
 * Install anywhere (issue 28): `npm run pack` makes a tarball that `npm install -g --prefix
 * <temp>` turns into a working `<temp>/bin/panto`, run from a folder outside the repository
 * with an environment that points nowhere into it. Its two external dependencies
 * (fs-native-extensions, tsx) come from the npm registry (or npm's cache).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeLLMServer, waitUntil } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packCli } from '../scripts/pack.js';
import { tempDir } from './support/temp-dir.js';

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
let temp: { path: string; cleanup(): Promise<void> };
let server: FakeLLMServer;
let tarball: string;
let prefix: string;
let installOutput: string;

beforeAll(async () => {
  temp = await tempDir('panto-pack-');
  server = await FakeLLMServer.start();
  tarball = await packCli(join(temp.path, 'packs'));
  prefix = join(temp.path, 'prefix');
  // As the README says to install it: --ignore-scripts, since the one install script among its
  // dependencies (esbuild's) is not needed; npm warns about it otherwise (npm 11.16 and later).
  const install = spawnSync(
    'npm',
    ['install', '-g', '--prefix', prefix, '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn', tarball],
    { cwd: temp.path, encoding: 'utf8' },
  );
  if (install.status !== 0) throw new Error(`npm install failed: ${install.stderr}`);
  installOutput = `${install.stdout}${install.stderr}`;
}, 240_000);
afterAll(async () => {
  await server?.close();
  await temp?.cleanup();
});

/** Runs the installed panto (asynchronously: the fake server answers in this process). */
function panto(args: readonly string[], extraEnv: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(join(prefix, 'bin', 'panto'), args, {
    cwd: join(temp.path, 'prefix'),
    // Nothing of the repository: no NODE_PATH, no NODE_OPTIONS, a PATH with node only.
    env: { PATH: `${resolve(process.execPath, '..')}:/usr/bin:/bin`, HOME: temp.path, PANTO_HOME: join(temp.path, 'home'), NO_COLOR: '1', ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((done, fail) => {
    child.once('error', fail);
    child.once('close', (status) => done({ status, stdout, stderr }));
  });
}

describe('npm run pack → npm install -g --prefix', { timeout: 120_000 }, () => {
  it('packs @panto/cli with the CLI and @panto/core bundled, depending on no @panto package', async () => {
    expect(tarball).toMatch(/panto-cli-\d+\.\d+\.\d+\.tgz$/);
    const manifest = JSON.parse(await readFile(join(prefix, 'lib', 'node_modules', '@panto', 'cli', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies).toEqual({ 'fs-native-extensions': expect.any(String), tsx: expect.any(String) });
    const bundle = await readFile(join(prefix, 'lib', 'node_modules', '@panto', 'cli', 'dist', 'panto.mjs'), 'utf8');
    expect(bundle).not.toContain(repo);
    expect(bundle).not.toMatch(/from\s*["']@panto\//);
  });

  it('<prefix>/bin/panto --version, and a -p turn against the fake provider from another folder, saving its session', async () => {
    const version = await panto(['--version']);
    expect(version.stderr).toBe('');
    expect(version.stdout).toMatch(/^panto \d+\.\d+\.\d+\n$/);

    server.enqueue({ text: 'Installed and answering.' });
    const turn = await panto(['--provider', 'openai', '--model', 'gpt-pack', '--base-url', server.openaiBaseURL, '-p', 'are you there?'], {
      OPENAI_API_KEY: 'sk-test',
    });
    expect(turn.status, turn.stderr).toBe(0);
    expect(turn.stdout).toBe('Installed and answering.\n');
    expect(JSON.stringify(server.requests[0]?.body)).toContain('are you there?');
    const list = await panto(['--list']);
    expect(list.stdout).toContain('are you there?');
  });

  it('installs with --ignore-scripts without a warning, and TypeScript extensions still load: esbuild needs no install script', async () => {
    expect(installOutput).not.toMatch(/install-scripts|allow-scripts/);
    const esbuild = await readFile(join(prefix, 'lib', 'node_modules', '@panto', 'cli', 'node_modules', 'esbuild', 'bin', 'esbuild'), 'utf8');
    // The script never ran: the launcher is still esbuild's JavaScript one, not the native binary it would copy there.
    expect(esbuild.startsWith('#!/usr/bin/env node')).toBe(true);
    const folder = join(temp.path, 'ts-extension');
    await mkdir(folder, { recursive: true });
    // Type annotations that only a TypeScript loader (tsx, on esbuild) gets past.
    await writeFile(
      join(folder, 'typed.ts'),
      "const typed = (): void => {\n  const answer: number = 42;\n  process.stderr.write('typed extension loaded: ' + answer + '\\n');\n};\nexport default typed;\n",
    );
    const run = await panto(['--provider', 'offline', '--extension', join(folder, 'typed.ts'), '-p', 'hi']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain('typed extension loaded: 42');
  });

  it('<prefix>/bin/panto acp answers an ACP initialize on stdout (the protocol library is in the bundle)', async () => {
    const child = spawn(join(prefix, 'bin', 'panto'), ['acp'], {
      cwd: temp.path,
      env: { PATH: `${resolve(process.execPath, '..')}:/usr/bin:/bin`, HOME: temp.path, PANTO_HOME: join(temp.path, 'home'), NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((done) => child.once('close', done));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 1 } })}\n`);
    await waitUntil(() => stdout.includes('\n'), { message: 'the initialize response', timeoutMs: 30_000 });
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(JSON.parse(stdout.split('\n')[0]!)).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: 1, agentCapabilities: { loadSession: true } },
    });
  });
});
