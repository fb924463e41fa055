/**
 * Runs the built `panto` CLI (packages/cli/dist/entry/process-main.js) as a child process, for the
 * end-to-end tests in test/cli-*.test.ts. `npm test` builds it first (`tsc -b`).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeLLMServer, waitUntil, type RecordedRequest } from '@panto/core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { tempDir, tempDirOutsideTemp } from './support/temp-dir.js';

export const CLI = fileURLToPath(new URL('../packages/cli/dist/entry/process-main.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npx tsc -b, or npm test)`);
}

export interface Sandbox {
  root: string;
  /** The working folder panto runs in. */
  cwd: string;
  /** PANTO_HOME. */
  home: string;
  /** A clean environment: PATH, HOME and PANTO_HOME in the sandbox, no API keys of the host. */
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * A fresh folder tree for one run: `root` (HOME), `root/project` (the working folder) and
 * `root/panto-home`. `outsideTemp`: outside every temp folder, for tests of what the bash
 * sandbox refuses (the temp folder is writable in it).
 */
export async function sandbox(options: { outsideTemp?: boolean } = {}): Promise<Sandbox> {
  const { path: root, cleanup } = options.outsideTemp ? await tempDirOutsideTemp('panto-e2e-') : await tempDir('panto-e2e-');
  const cwd = join(root, 'project');
  const home = join(root, 'panto-home');
  await mkdir(cwd);
  return {
    root,
    cwd,
    home,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: root,
      PANTO_HOME: home,
      LANG: 'C.UTF-8',
      NO_COLOR: '1',
    },
    cleanup,
  };
}

/** What {@link fakeServerSandbox} gives the tests of a file. */
export interface FakeServerSandbox {
  /** The fake LLM server, one for the file; its recorded requests are cleared before each test. */
  readonly server: FakeLLMServer;
  /** A fresh sandbox for each test. */
  readonly box: Sandbox;
  /** The flags and environment that point panto at the server's OpenAI endpoint with `model`. */
  openai(model?: string): { args: string[]; env: Record<string, string> };
}

/**
 * The set-up of a file of tests that run the built CLI against a fake LLM server: the server
 * started once for the file, a fresh sandbox for each test, and after each test a check that
 * every queued reply was used. Call it at the top level of the file.
 */
export function fakeServerSandbox(options: { outsideTemp?: boolean } = {}): FakeServerSandbox {
  let server: FakeLLMServer | undefined;
  let box: Sandbox | undefined;
  beforeAll(async () => {
    assertBuilt();
    server = await FakeLLMServer.start();
  });
  afterAll(async () => server?.close());
  beforeEach(async () => {
    box = await sandbox(options);
    fake.server.requests.length = 0;
  });
  afterEach(async () => {
    expect(fake.server.queued, 'every queued reply was used').toBe(0);
    await fake.box.cleanup();
  });
  const fake: FakeServerSandbox = {
    get server() {
      if (server === undefined) throw new Error('the fake LLM server is not started yet (use it inside a test)');
      return server;
    },
    get box() {
      if (box === undefined) throw new Error('no sandbox yet (use it inside a test)');
      return box;
    },
    openai: (model = 'gpt-e2e') => ({
      args: ['--provider', 'openai', '--model', model, '--base-url', fake.server.openaiBaseURL],
      env: { ...fake.box.env, OPENAI_API_KEY: 'sk-test' },
    }),
  };
  return fake;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running CLI whose output is collected as it arrives. */
export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  readonly stdout: string;
  readonly stderr: string;
  done: Promise<RunResult>;
}

export function startPanto(args: readonly string[], options: { cwd: string; env: Record<string, string>; stdin?: string }): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: options.env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  if (options.stdin !== undefined) child.stdin.end(options.stdin);
  const done = new Promise<RunResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    done,
  };
}

/** Runs the CLI to the end; stdin gets `stdin` (or is closed at once). */
export function runPanto(args: readonly string[], options: { cwd: string; env: Record<string, string>; stdin?: string }): Promise<RunResult> {
  return startPanto(args, { ...options, stdin: options.stdin ?? '' }).done;
}

/** The `.jsonl` files directly in `dir` ([] when it does not exist). */
export async function jsonlFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((name) => name.endsWith('.jsonl')).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

/** A request the fake server recorded, its body as JSON text (to look for what was sent). */
export function requestBody(request: RecordedRequest | undefined): string {
  return JSON.stringify(request?.body);
}

/** The tool results a request sent the model (OpenAI Chat shape), by tool call id. */
export function toolResults(request: RecordedRequest | undefined): Record<string, string> {
  const messages = (request?.body as { messages?: { role: string; tool_call_id?: string; content?: unknown }[] } | undefined)?.messages ?? [];
  return Object.fromEntries(
    messages.flatMap((message) => (message.role === 'tool' && message.tool_call_id ? [[message.tool_call_id, String(message.content)]] : [])),
  );
}

/** Polls until `condition` holds, or fails after `timeoutMs`, saying what it waited for. */
export function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  return waitUntil(condition, { message: what, timeoutMs, intervalMs: 20 });
}
