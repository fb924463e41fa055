/**
 * Drives the built `panto acp` the way an editor does: a spawned process, and the official
 * ACP library's client side (`ClientSideConnection` over `ndJsonStream`) on its stdin and
 * stdout. The client records every `session/update` and permission request, and answers
 * permission requests as the test says.
 */
import {
  ClientSideConnection,
  ndJsonStream,
  PROTOCOL_VERSION,
  type InitializeResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { afterEach } from 'vitest';
import { CLI, type FakeServerSandbox } from './cli-harness.js';

/** A running `panto acp` and the client connected to it. */
export interface ACPRun {
  readonly connection: ClientSideConnection;
  /** What `initialize` answered. */
  readonly initialized: InitializeResponse;
  /** Every `session/update` received, in order. */
  readonly updates: SessionNotification[];
  /** Every permission request received, in order. */
  readonly permissionRequests: RequestPermissionRequest[];
  /** How the client answers the next permission requests (default: cancelled). */
  answer: (request: RequestPermissionRequest) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  readonly stderr: string;
  /** Closes panto's stdin (the editor went away) and waits for it to exit. */
  close(): Promise<{ code: number | null; stderr: string }>;
}

/** Picks the option with `optionId` (what a user clicking it sends). */
export function select(optionId: string): RequestPermissionResponse {
  return { outcome: { outcome: 'selected', optionId } };
}

/** Starts `panto acp ARGS` in `cwd` and initializes the connection. */
export async function startACP(args: readonly string[], options: { cwd: string; env: Record<string, string> }): Promise<ACPRun> {
  const child = spawn(process.execPath, [CLI, 'acp', ...args], { cwd: options.cwd, env: options.env, stdio: 'pipe' });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const updates: SessionNotification[] = [];
  const permissionRequests: RequestPermissionRequest[] = [];
  const run = {
    updates,
    permissionRequests,
    answer: (_request: RequestPermissionRequest): RequestPermissionResponse | Promise<RequestPermissionResponse> => ({ outcome: { outcome: 'cancelled' } }),
    get stderr() {
      return stderr;
    },
    async close() {
      child.stdin.end();
      const code = await exited;
      return { code, stderr };
    },
  };
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const connection = new ClientSideConnection(
    () => ({
      sessionUpdate: (params) => {
        updates.push(params);
      },
      requestPermission: async (params) => {
        permissionRequests.push(params);
        return run.answer(params);
      },
    }),
    stream,
  );
  const initialized = await connection.initialize({
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    clientInfo: { name: 'panto-test-client', version: '0.0.0' },
  });
  return Object.assign(run, { connection, initialized });
}

/** The updates of `sessionId` of one kind, in order. */
export function updatesOf<K extends SessionUpdate['sessionUpdate']>(run: ACPRun, sessionId: string, kind: K): Extract<SessionUpdate, { sessionUpdate: K }>[] {
  return run.updates.flatMap((notification) =>
    notification.sessionId === sessionId && notification.update.sessionUpdate === kind
      ? [notification.update as Extract<SessionUpdate, { sessionUpdate: K }>]
      : [],
  );
}

/** The text of the chunks of one kind (`agent_message_chunk`, …) of `sessionId`, joined. */
export function chunkText(run: ACPRun, sessionId: string, kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk'): string {
  return updatesOf(run, sessionId, kind)
    .map((update) => (update.content.type === 'text' ? update.content.text : ''))
    .join('');
}

/**
 * For a file of tests on the fake LLM server: starts `panto acp` pointed at it (plus `extra`
 * flags) in `cwd()`, and closes every one started after each test.
 */
export function acpClients(e2e: FakeServerSandbox, cwd: () => string): (extra?: readonly string[]) => Promise<ACPRun> {
  const started: ACPRun[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((run) => run.close()));
  });
  return async (extra = []) => {
    const { args, env } = e2e.openai();
    const run = await startACP([...args, ...extra], { cwd: cwd(), env });
    started.push(run);
    return run;
  };
}
