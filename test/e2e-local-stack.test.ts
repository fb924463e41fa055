/**
 * End to end on the local stack: `scripts/start.ts` (the real node server, as `npm start`
 * runs it) in its own process, on the run's DynamoDB Local and s3rver, with a
 * FakeLLMServer as the Anthropic API.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FSJSONLStore, type Message } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { FakeLLMServer, waitUntil } from '@panto/core/testing';
import { localSecretFile, readLocalSecret, signLocalToken } from '@panto/functions/local';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { a2aClient, answerOf, send, userMessage } from './a2a-harness.js';
import { json, parseSSE, snapshot, sseReader } from './api-harness.js';
import { startLocalStack, type LocalStack } from './local-stack-harness.js';
import { runUserCommand } from '../scripts/deployed/commands.js';
import { localAws, type LocalAws } from './setup/aws-fixtures.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The server's turn lease in these tests. */
const LEASE_MS = 3_000;
/** What the issue allows between a crash and the next turn that succeeds. */
const FREE_AGAIN_WITHIN_MS = 45_000;

let aws: LocalAws;
let fake: FakeLLMServer;
let dataDir: string;
let server: LocalStack;
let secret: Uint8Array;

/** Starts `scripts/start.ts` on the shared emulators (`options`: another table, data folder, settings). */
function startServer(options: { aws?: LocalAws; dataDir?: string; env?: NodeJS.ProcessEnv } = {}): Promise<LocalStack> {
  return startLocalStack({
    aws: options.aws ?? aws,
    dataDir: options.dataDir ?? dataDir,
    fake,
    model: 'claude-e2e',
    env: {
      // Short, so that the proof that a crashed turn frees its session runs in seconds (renewed
      // every second); the default (30 s) is asserted in functions/src/config.test.ts.
      PANTO_LEASE_MS: String(LEASE_MS),
      PANTO_BODY_LIMIT_BYTES: '65536',
      ...options.env,
    },
  });
}

beforeAll(async () => {
  aws = await localAws('e2e');
  fake = await FakeLLMServer.start();
  dataDir = await mkdtemp(join(tmpdir(), 'panto-e2e-'));
  server = await startServer();
  secret = await readLocalSecret(localSecretFile(dataDir));
});

afterAll(async () => {
  if (server) await server.stop('SIGINT');
  await fake?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function call(token: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

const roles = (messages: readonly Message[]): string[] => messages.map((message) => message.role);

describe('the local stack', () => {
  let alice: string;
  let bob: string;
  let sessionId: string;

  beforeAll(async () => {
    alice = await signLocalToken(secret, 'alice');
    bob = await signLocalToken(secret, 'bob');
  });

  it('runs three turns, one with a tool call, each persisted as it happens', async () => {
    sessionId = (await json<{ id: string }>(await call(alice, 'POST', '/sessions', { system: 'Be brief.' }), 201)).id;
    fake.enqueue({ text: 'Hello, Alice.' });
    fake.enqueue({ toolCalls: [{ id: 'toolu_e2e', name: 'current_time', input: { time_zone: 'UTC' } }] }, { text: 'It is morning.' });
    fake.enqueue({ text: 'Goodbye.' });
    const first = await json<{ messages: Message[] }>(await call(alice, 'POST', `/sessions/${sessionId}/messages`, { text: 'hi' }), 200);
    const second = await json<{ messages: Message[] }>(await call(alice, 'POST', `/sessions/${sessionId}/messages`, { text: 'time?' }), 200);
    const third = await json<{ messages: Message[] }>(await call(alice, 'POST', `/sessions/${sessionId}/messages`, { text: 'bye' }), 200);
    expect(roles(first.messages)).toEqual(['user', 'assistant']);
    expect(roles(second.messages)).toEqual(['user', 'assistant', 'tool_result', 'assistant']);
    expect(second.messages[2]).toMatchObject({ tool_name: 'current_time', is_error: false, content: expect.stringMatching(/\(UTC: /) });
    expect(roles(third.messages)).toEqual(['user', 'assistant']);
    const contents = await json<{ messages: Message[]; dangling_user: string | null }>(await call(alice, 'GET', `/sessions/${sessionId}`), 200);
    expect(contents.messages).toEqual([
      { role: 'system', content: 'Be brief.', mode: 'replace', id: expect.any(String), timestamp: expect.any(String), accepts_prompt: true },
      ...first.messages,
      ...second.messages,
      ...third.messages,
    ]);
    expect(contents.dangling_user).toBeNull();
    // The last provider call saw the whole conversation, the tool result included.
    const lastRequest = fake.requests.at(-1)?.body as { messages: unknown[]; system?: unknown };
    expect(lastRequest.messages).toHaveLength(7);
  });

  it('applies npm run user -- limits on the same PANTO_DATA_DIR from the next turn on, and shows the usage', async () => {
    let out = '';
    const user = (argv: string[]): Promise<number> =>
      runUserCommand(argv, {
        root: process.cwd(),
        env: { PANTO_DATA_DIR: dataDir },
        stdout: (text) => (out += text),
        stderr: (text) => (out += text),
        readPassword: async () => '',
      });
    const id = (await json<{ id: string }>(await call(alice, 'POST', '/sessions', {}), 201)).id;
    expect(await user(['limits', 'alice', '--turns-per-minute', '0']), out).toBe(0);
    const refused = await call(alice, 'POST', `/sessions/${id}/messages`, { text: 'may I?' });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    expect(await user(['limits', 'alice', '--turns-per-minute', 'default']), out).toBe(0);
    fake.enqueue({ text: 'Yes.' });
    expect((await call(alice, 'POST', `/sessions/${id}/messages`, { text: 'now?' })).status).toBe(200);
    out = '';
    expect(await user(['usage', 'alice'])).toBe(0);
    expect(out).toMatch(/^alice\n {2}today {3}\$\d+\.\d{4}.* 4 turns /);
  });

  it('prints shell lines that run a turn as pasted (PANTO_STREAM exported for the streamed examples), and a browser link with the token', async () => {
    const printed = server.output();
    const start = printed.indexOf('export PANTO=');
    const lines = printed.slice(start, printed.indexOf('\n\n', start));
    expect(lines.split('\n')).toHaveLength(3);
    fake.enqueue({ text: 'Hello from the pasted lines.' }, { text: 'Streamed to the same shell.' });
    // Then a streamed example of docs/api.md, as pasted into the same shell: PANTO_STREAM is set too.
    const streamed = `curl -sN -X POST $PANTO_STREAM/sessions/$ID/messages/stream -H "authorization: Bearer $PANTO_TOKEN" -d '{"text":"and streamed"}'`;
    const script = `${lines}\necho\necho ---\n${streamed}`;
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: root, env: { PATH: process.env.PATH } });
    const [synchronous = '', events = ''] = stdout.split('\n---\n');
    expect(parseSSE(events).at(-1)).toMatchObject({ event: 'end', data: { stop_reason: 'end_turn' } });
    expect(events).toContain('Streamed to the same shell.');
    const turn = JSON.parse(synchronous) as { messages: Message[]; stop_reason: string };
    expect(turn.stop_reason).toBe('end_turn');
    expect(turn.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(turn.messages[0]).toMatchObject({ content: 'hello' });
    const link = new RegExp(`browser +${server.url.replaceAll('.', '\\.')}/#token=([\\w.-]+)`).exec(printed);
    expect(link?.[1]).toBeDefined();
    expect((await call(link![1]!, 'GET', '/sessions')).status).toBe(200);
    expect((await fetch(`${server.url}/reference`)).status).toBe(200);
  });

  it('prints the A2A Agent Card link; the A2A SDK client finds the interface there and runs a task with the printed token', async () => {
    const printed = server.output();
    const card = new RegExp(`a2a +(${server.url.replaceAll('.', '\\.')}/\\.well-known/agent-card\\.json)`).exec(printed)?.[1];
    expect(card).toBeDefined();
    const link = new RegExp(`browser +${server.url.replaceAll('.', '\\.')}/#token=([\\w.-]+)`).exec(printed);
    const client = await a2aClient(server.url, link![1]!);
    expect((await client.getAgentCard()).supportedInterfaces[0]?.url).toBe(`${server.url}/a2a`);
    fake.enqueue({ text: 'Hello, other agent.' });
    const task = await send(client, userMessage('Hello from another agent'));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(answerOf(task)).toBe('Hello, other agent.');
  });

  it('streams a turn over server-sent events', async () => {
    fake.enqueue({ text: 'Streamed reply.' });
    const response = await call(alice, 'POST', `/sessions/${sessionId}/messages/stream`, { text: 'stream please' });
    const events = parseSSE(await response.text());
    expect(response.status).toBe(200);
    expect(
      events
        .filter((e) => e.event === 'text-delta')
        .map((e) => (e.data as { delta: string }).delta)
        .join(''),
    ).toBe('Streamed reply.');
    expect(events.at(-1)).toMatchObject({ event: 'end', data: { stop_reason: 'end_turn', incomplete: false } });
  });

  it("keeps a streamed turn's session past its lease term while it runs, renewing the lease", { timeout: 60_000 }, async () => {
    const session = (await json<{ id: string }>(await call(alice, 'POST', '/sessions', {}), 201)).id;
    fake.enqueue({ text: 'one two three', pauseAfterDeltas: 1 });
    const streamed = sseReader(await call(alice, 'POST', `/sessions/${session}/messages/stream`, { text: 'take your time' }));
    await streamed.until((event) => event.event === 'text-delta');
    const until = performance.now() + 2 * LEASE_MS;
    await waitUntil(() => performance.now() >= until, { message: 'two lease terms passed', timeoutMs: 3 * LEASE_MS });
    const busy = await json<{ error: { code: string } }>(await call(alice, 'POST', `/sessions/${session}/messages`, { text: 'me too' }), 409);
    expect(busy.error.code).toBe('session_busy');
    fake.resume();
    expect((await streamed.rest()).at(-1)).toMatchObject({ event: 'end', data: { stop_reason: 'end_turn', incomplete: false } });
  });

  it.each([
    ['a synchronous turn', 'messages', { text: 'are you there?' }],
    ['a streamed turn', 'messages/stream', { text: 'are you there?' }],
    ['a compaction', 'compact', {}],
  ] as const)(
    'frees the session of %s whose server was SIGKILLed within 45 s of the crash: a new turn succeeds after a restart',
    { timeout: 120_000 },
    async (kind, path, body) => {
      const crashed = (await json<{ id: string }>(await call(alice, 'POST', '/sessions', {}), 201)).id;
      if (path === 'compact') {
        fake.enqueue({ text: 'something to summarise' });
        await json<unknown>(await call(alice, 'POST', `/sessions/${crashed}/messages`, { text: 'hi' }), 200);
      }
      fake.enqueue({ text: 'This answer never arrives in full', hang: true });
      const calls = fake.requests.length;
      const pending = call(alice, 'POST', `/sessions/${crashed}/${path}`, body)
        .then((response) => response.text())
        .catch((error: unknown) => error);
      await waitUntil(() => fake.requests.length > calls, { message: "the turn's request reached the fake LLM server", timeoutMs: 15_000 });
      await server.stop('SIGKILL');
      const crashedAt = performance.now();
      expect(await pending).toBeInstanceOf(Error);
      server = await startServer();
      const before = await json<{ messages: Message[]; dangling_user: string | null }>(await call(alice, 'GET', `/sessions/${crashed}`), 200);
      if (path === 'compact') expect(before.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
      else expect(before).toMatchObject({ dangling_user: 'are you there?', messages: [] });

      fake.enqueue({ text: 'Back again.' });
      let freedAfterMs = Number.POSITIVE_INFINITY;
      await waitUntil(
        async () => {
          const response = await call(alice, 'POST', `/sessions/${crashed}/messages`, { text: 'again' });
          const text = await response.text();
          if (response.status === 409) return false;
          expect(response.status, text).toBe(200);
          freedAfterMs = performance.now() - crashedAt;
          return true;
        },
        { message: 'a new turn on the crashed session succeeds', timeoutMs: FREE_AGAIN_WITHIN_MS, intervalMs: 200 },
      );
      expect(freedAfterMs).toBeLessThan(FREE_AGAIN_WITHIN_MS);
      // PANTO_E2E_FIGURES=1 prints the figure (it includes the restart, ~2–3 s here).
      if (process.env.PANTO_E2E_FIGURES)
        process.stdout.write(`\n${kind}: session free again ${(freedAfterMs / 1000).toFixed(1)} s after SIGKILL (lease ${LEASE_MS / 1000} s)\n`);
    },
  );

  it('stores the whole answer of a streamed turn whose client went away after the first text delta', async () => {
    const session = (await json<{ id: string }>(await call(alice, 'POST', '/sessions', {}), 201)).id;
    fake.enqueue({ text: 'one two three four', pauseAfterDeltas: 1 });
    const controller = new AbortController();
    const response = await fetch(`${server.url}/sessions/${session}/messages/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}` },
      body: JSON.stringify({ text: 'answer me in a lift' }),
      signal: controller.signal,
    });
    await sseReader(response).until((event) => event.event === 'text-delta');
    controller.abort();
    const during = await json<{ turn: { running: boolean } | null }>(await call(alice, 'GET', `/sessions/${session}`), 200);
    expect(during.turn).toMatchObject({ running: true });
    fake.resume();
    await waitUntil(async () => (await json<{ turn: unknown }>(await call(alice, 'GET', `/sessions/${session}`), 200)).turn === null, {
      message: 'the turn ended',
      timeoutMs: 15_000,
    });
    const after = await json<{ messages: Message[] }>(await call(alice, 'GET', `/sessions/${session}`), 200);
    expect(after.messages[1]).toMatchObject({ role: 'assistant', stop_reason: 'end_turn', content: [{ type: 'text', text: 'one two three four' }] });
  });

  it('stops a running turn from another connection within a renewal period; another owner gets 404', async () => {
    const session = (await json<{ id: string }>(await call(alice, 'POST', '/sessions', {}), 201)).id;
    fake.enqueue({ text: 'one two three four', pauseAfterDeltas: 1 });
    const streamed = sseReader(await call(alice, 'POST', `/sessions/${session}/messages/stream`, { text: 'a long story' }));
    await streamed.until((event) => event.event === 'text-delta');
    expect((await call(bob, 'POST', `/sessions/${session}/stop`)).status).toBe(404);
    expect((await call(alice, 'POST', `/sessions/${session}/stop`)).status).toBe(202);
    const end = (await streamed.rest()).at(-1);
    expect(end).toMatchObject({ event: 'end', data: { stop_reason: 'aborted', incomplete_reason: 'stopped' } });
    const after = await json<{ messages: Message[]; turn: unknown }>(await call(alice, 'GET', `/sessions/${session}`), 200);
    expect(after.turn).toBeNull();
    expect(after.messages[1]).toMatchObject({ role: 'assistant', stop_reason: 'aborted', content: [{ type: 'text', text: 'one' }] });
  });

  it("answers owner B with 404 on every route of owner A's session, and changes nothing", async () => {
    const before = await snapshot(aws);
    const requests = fake.requests.length;
    const unknown = await json<unknown>(await call(bob, 'GET', '/sessions/01a00000-0000-7000-8000-000000000000'), 404);
    const routes: [string, string, unknown][] = [
      ['GET', `/sessions/${sessionId}`, undefined],
      ['POST', `/sessions/${sessionId}/messages`, { text: 'let me in' }],
      ['POST', `/sessions/${sessionId}/messages/stream`, { text: 'let me in' }],
      ['POST', `/sessions/${sessionId}/compact`, {}],
      ['POST', `/sessions/${sessionId}/export`, {}],
      ['POST', `/sessions/${sessionId}/stop`, {}],
      ['GET', `/sessions/${sessionId}/events`, undefined],
      ['GET', `/sessions/${sessionId}/entries`, undefined],
      ['GET', `/sessions/${sessionId}/tree`, undefined],
      ['PUT', `/sessions/${sessionId}/leaf`, { entry_id: 'any-entry' }],
      ['POST', `/sessions/${sessionId}/fork`, { entry_id: 'any-entry' }],
      ['PATCH', `/sessions/${sessionId}`, { title: 'mine' }],
      ['DELETE', `/sessions/${sessionId}`, undefined],
    ];
    for (const [method, path, body] of routes) {
      expect(await json<unknown>(await call(bob, method, path, body), 404), `${method} ${path}`).toEqual(unknown);
    }
    const listed = await json<{ sessions: unknown[] }>(await call(bob, 'GET', '/sessions'), 200);
    expect(listed.sessions).toEqual([]);
    expect(await snapshot(aws)).toEqual(before);
    expect(fake.requests.length).toBe(requests);
  });

  it('answers 50 malformed or hostile requests with 4xx and changes nothing', async () => {
    const before = await snapshot(aws);
    const requests = fake.requests.length;
    const now = Math.floor(Date.now() / 1000);
    const sign = (build: (jwt: SignJWT) => SignJWT, key: Uint8Array = secret, alg = 'HS256'): Promise<string> =>
      build(new SignJWT({}).setProtectedHeader({ alg })).sign(key);
    const local = (jwt: SignJWT): SignJWT => jwt.setIssuer('panto-local').setAudience('panto');
    const forged = await signLocalToken(new Uint8Array(32).fill(1), 'alice');
    const expired = await sign((jwt) =>
      local(jwt)
        .setSubject('alice')
        .setIssuedAt(now - 7200)
        .setExpirationTime(now - 3600),
    );
    const notYet = await sign((jwt) =>
      local(jwt)
        .setSubject('alice')
        .setNotBefore(now + 3600)
        .setExpirationTime(now + 7200),
    );
    const hs512 = await sign((jwt) => local(jwt).setSubject('alice').setExpirationTime('1h'), secret, 'HS512');
    const none = new UnsecuredJWT({}).setSubject('alice').setIssuer('panto-local').setAudience('panto').setExpirationTime('1h').encode();
    const noSub = await sign((jwt) => local(jwt).setExpirationTime('1h'));
    const otherIssuer = await sign((jwt) => jwt.setIssuer('evil').setAudience('panto').setSubject('alice').setExpirationTime('1h'));
    const [header, payload] = alice.split('.');
    const tampered = `${header}.${Buffer.from(JSON.stringify({ sub: 'bob', iss: 'panto-local', aud: 'panto', exp: now + 60 })).toString('base64url')}.${alice.split('.')[2]}`;
    const messages = `/sessions/${sessionId}/messages`;
    const huge = JSON.stringify({ text: 'x'.repeat(70_000) });

    const cases: [string | null, string, string, unknown?, Record<string, string>?][] = [
      // no or bad credentials
      [null, 'GET', '/sessions'],
      [null, 'POST', '/sessions', {}],
      [null, 'POST', messages, { text: 'hi' }],
      [null, 'DELETE', `/sessions/${sessionId}`],
      [forged, 'GET', `/sessions/${sessionId}`],
      [forged, 'POST', messages, { text: 'forged' }],
      [expired, 'POST', messages, { text: 'expired' }],
      [notYet, 'GET', '/sessions'],
      [hs512, 'GET', '/sessions'],
      [none, 'POST', '/sessions', {}],
      [noSub, 'POST', '/sessions', {}],
      [otherIssuer, 'GET', '/sessions'],
      [tampered, 'DELETE', `/sessions/${sessionId}`],
      [`${header}.${payload}`, 'GET', '/sessions'],
      [null, 'GET', '/sessions', undefined, { authorization: `Basic ${Buffer.from('alice:pw').toString('base64')}` }],
      [null, 'GET', '/sessions', undefined, { authorization: `Bearer ${alice} extra` }],
      // bad JSON and wrong types
      [alice, 'POST', messages, '{"text": "unterminated'],
      [alice, 'POST', messages, '{text: hi}'],
      [alice, 'POST', messages, '\u0000\u0001'],
      [alice, 'POST', messages, '"just a string"'],
      [alice, 'POST', messages, '[{"text":"in an array"}]'],
      [alice, 'POST', messages, 'null'],
      [alice, 'POST', messages, {}],
      [alice, 'POST', messages, { text: null }],
      [alice, 'POST', messages, { text: 123 }],
      [alice, 'POST', messages, { text: { nested: true } }],
      [alice, 'POST', messages, { text: '' }],
      [alice, 'POST', messages, { text: 'hi', role: 'system' }],
      [alice, 'POST', '/sessions', { system: 42 }],
      [alice, 'POST', '/sessions', { provider: '../../etc' }],
      [alice, 'POST', '/sessions', { provider: 'nonesuch' }],
      [alice, 'POST', '/sessions', { model: '' }],
      [alice, 'POST', messages, '{"__proto__":{"owner":"bob"},"text":"polluted"}'],
      [alice, 'POST', `/sessions/${sessionId}/compact`, { instructions: ['x'] }],
      [alice, 'POST', `/sessions/${sessionId}/export`, { expires_in: 1 }],
      [alice, 'POST', `/sessions/${sessionId}/export`, { expires_in: '3600' }],
      [alice, 'GET', '/sessions?limit=-5'],
      [alice, 'GET', '/sessions?limit=1e3'],
      [alice, 'GET', '/sessions?cursor=%7B%22pk%22%3A%22SESSION%23x%22%7D'],
      // huge bodies
      [alice, 'POST', messages, huge],
      [alice, 'POST', '/sessions', JSON.stringify({ system: 's'.repeat(100_000) })],
      [alice, 'POST', `/sessions/${sessionId}/compact`, JSON.stringify({ instructions: 'i'.repeat(80_000) })],
      // hostile ids and routes
      [alice, 'GET', '/sessions/..%2F..%2Fetc%2Fpasswd'],
      [alice, 'POST', '/sessions/..%2F..%2Fetc/messages', { text: 'hi' }],
      [alice, 'DELETE', '/sessions/%2e%2e'],
      [alice, 'GET', `/sessions/${'a'.repeat(300)}`],
      [alice, 'GET', '/sessions/SESSION%23x'],
      [alice, 'POST', `/sessions/${sessionId}%00/messages`, { text: 'hi' }],
      [alice, 'PUT', `/sessions/${sessionId}`, { text: 'hi' }],
      [alice, 'GET', '/admin'],
    ];
    expect(cases).toHaveLength(50);
    for (const [token, method, path, body, headers] of cases) {
      const response = await call(token, method, path, body, headers);
      const text = await response.text();
      expect(response.status, `${method} ${path} → ${text}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${method} ${path} → ${text}`).toBeLessThan(500);
      expect(JSON.parse(text)).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
    }
    expect(await snapshot(aws)).toEqual(before);
    expect(fake.requests.length).toBe(requests);
  });

  it('exports the session, and the downloaded file opens in FSJSONLStore as the same conversation', async () => {
    const exported = await json<{ url: string; key: string }>(await call(alice, 'POST', `/sessions/${sessionId}/export`), 200);
    const bytes = new Uint8Array(await (await fetch(exported.url)).arrayBuffer());
    const file = join(dataDir, 'export.jsonl');
    await writeFile(file, bytes);
    const store = await FSJSONLStore.open(file);
    const { conversation, danglingUser, entries } = await store.loadConversation();
    const contents = await json<{ messages: Message[]; dangling_user: string | null }>(await call(alice, 'GET', `/sessions/${sessionId}`), 200);
    // The same messages, and each the entry of the same id and time in the file (what the API says of them besides, aside).
    const fromFile = conversation.messages.map((message, i) => ({ ...message, id: entries[i]?.id, timestamp: entries[i]?.timestamp }));
    expect(fromFile).toEqual(contents.messages.map(({ accepts_prompt: _said, ...message }: Message & { accepts_prompt?: boolean }) => message));
    expect(danglingUser).toBe(contents.dangling_user);
    expect(store.sessionId()).toBe(sessionId);
  });

  it('gives 10 concurrent turns on one session only 200s and 409s, and a log without gaps or interleaving', async () => {
    const session = (await json<{ id: string }>(await call(alice, 'POST', '/sessions', {}), 201)).id;
    for (let i = 0; i < 10; i++) fake.enqueue({ text: `answer ${i}`, delayMs: 150 });
    const texts = Array.from({ length: 10 }, (_, i) => `concurrent ${i}`);
    const responses = await Promise.all(texts.map((text) => call(alice, 'POST', `/sessions/${session}/messages`, { text })));
    const statuses = responses.map((response) => response.status);
    expect(
      statuses.every((status) => status === 200 || status === 409),
      statuses.join(','),
    ).toBe(true);
    const winners: Message[][] = [];
    for (const response of responses) {
      if (response.status === 200) winners.push(((await response.json()) as { messages: Message[] }).messages);
      else expect(((await response.json()) as { error: { code: string } }).error.code).toBe('session_busy');
    }
    expect(winners.length).toBeGreaterThanOrEqual(1);

    const contents = await json<{ messages: Message[] }>(await call(alice, 'GET', `/sessions/${session}`), 200);
    // Each winning turn's prompt and answer, in one block; nothing of a loser.
    expect(roles(contents.messages)).toEqual(winners.flatMap(() => ['user', 'assistant']));
    const sequence = [...contents.messages];
    for (let i = 0; i < sequence.length; i += 2) {
      const pair = sequence.slice(i, i + 2);
      expect(winners).toContainEqual(pair);
    }
    // The log itself: one chain, each entry the child of the one before it.
    const exported = await json<{ url: string }>(await call(alice, 'POST', `/sessions/${session}/export`), 200);
    const decoded = decodeSession(new Uint8Array(await (await fetch(exported.url)).arrayBuffer()), 'export');
    expect(decoded.entries).toHaveLength(winners.length * 2);
    for (const [i, entry] of decoded.entries.entries()) expect(entry.parent_id).toBe(i === 0 ? null : decoded.entries[i - 1]!.id);
  });

  it('stops with SIGINT', async () => {
    await server.stop('SIGINT');
    expect(server.child.exitCode).toBe(0);
    expect(server.output()).toContain('panto: stopping (SIGINT)');
  });
});

describe('the local stack with archiving on', () => {
  it('sweeps in the server every PANTO_ARCHIVE_SWEEP_SECONDS: an idle session is listed archived, and a read brings it back', { timeout: 90_000 }, async () => {
    const archiveAws = await localAws('e2e-archive');
    const archiveDir = await mkdtemp(join(tmpdir(), 'panto-e2e-archive-'));
    // Idle for about two seconds is cold; swept every second.
    const archiving = await startServer({
      aws: archiveAws,
      dataDir: archiveDir,
      env: { PANTO_ARCHIVE_AFTER_DAYS: '0.00002', PANTO_ARCHIVE_SWEEP_SECONDS: '1' },
    });
    try {
      expect(archiving.output()).toMatch(/archive +sessions idle 2 s go to s3:\/\/.+\/archive\/, swept every 1 s/);
      const token = await signLocalToken(await readLocalSecret(localSecretFile(archiveDir)), 'carol');
      const request = (method: string, path: string, body?: unknown): Promise<Response> =>
        fetch(`${archiving.url}${path}`, {
          method,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const { id } = await json<{ id: string }>(await request('POST', '/sessions', { system: 'Be brief.' }), 201);
      fake.enqueue({ text: 'Noted.' });
      await json(await request('POST', `/sessions/${id}/messages`, { text: 'remember this' }), 200);
      const before = await json<{ messages: Message[] }>(await request('GET', `/sessions/${id}`), 200);
      const listed = async (): Promise<{ archived: boolean; entry_count: number } | undefined> =>
        (await json<{ sessions: Array<{ id: string; archived: boolean; entry_count: number }> }>(await request('GET', '/sessions'), 200)).sessions.find(
          (session) => session.id === id,
        );
      await waitUntil(() => /archive sweep: 1 sessions archived/.test(archiving.output()), {
        timeoutMs: 30_000,
        intervalMs: 250,
        message: 'the server swept the session to S3',
      });
      expect(await listed()).toMatchObject({ archived: true, entry_count: 3 });
      expect(await json<{ messages: Message[] }>(await request('GET', `/sessions/${id}`), 200)).toEqual(before);
    } finally {
      await archiving.stop('SIGINT');
      await rm(archiveDir, { recursive: true, force: true });
    }
  });
});
