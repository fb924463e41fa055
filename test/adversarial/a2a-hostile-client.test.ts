/**
 * Attacks on A2A (docs/api.md#a2a), the way a hostile client or agent would try them, against
 * the real app: another owner's context and task ids, forged task ids (an entry that is no
 * prompt, a prompt of another session, traversal and separator tricks), a missing or forged
 * token, malformed JSON-RPC of every kind, an oversized body, a messageId reused for another
 * message. Each is refused before anything runs — no model call, nothing written.
 */
import { TaskNotFoundError } from '@a2a-js/sdk/errors';
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClient, send, userMessage } from '../a2a-harness.js';
import { snapshot, startApi, TEST_SECRET, type ApiHarness } from '../api-harness.js';

let api: ApiHarness;
let task: { id: string; contextId: string };

beforeAll(async () => {
  api = await startApi('a2a-hostile', { limits: { bodyLimitBytes: 64 * 1024 } });
  api.fake.enqueue({ text: 'Alice only.' });
  task = await send(await a2aClient(api.url, await api.token('alice')), userMessage('My secret'));
});
afterAll(async () => {
  await api?.close();
});

/** A raw JSON-RPC call to `/a2a`: `body` as is (a string is sent unchanged). */
async function rpc(owner: string | null, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const auth: Record<string, string> = owner === null ? {} : { authorization: `Bearer ${await api.token(owner)}` };
  return fetch(`${api.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...auth, ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
}

interface RpcError {
  jsonrpc: string;
  id: unknown;
  error: { code: number; message: string; data?: { reason?: string; metadata?: Record<string, string> }[] };
}

async function rpcError(response: Response): Promise<RpcError> {
  expect(response.status).toBe(200);
  const body = (await response.json()) as RpcError;
  expect(body.error, JSON.stringify(body)).toBeDefined();
  return body;
}

const sendParams = (message: object) => ({ message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'hi' }], ...message } });

/** Runs `attack` and checks that it wrote nothing and called no model. */
async function changesNothing(attack: () => Promise<void>): Promise<void> {
  const before = await snapshot(api.aws);
  const calls = api.fake.requests.length;
  await attack();
  expect(await snapshot(api.aws)).toEqual(before);
  expect(api.fake.requests.length).toBe(calls);
}

describe('a hostile A2A client', { timeout: 60_000 }, () => {
  it("cannot read, cancel, follow, answer or continue another owner's task or context: task not found, as for none", async () => {
    const mallory = await a2aClient(api.url, await api.token('mallory'));
    await changesNothing(async () => {
      await expect(mallory.getTask({ tenant: '', id: task.id, historyLength: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(mallory.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(send(mallory, userMessage('approve', { taskId: task.id }))).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(send(mallory, userMessage('tell me the secret', { contextId: task.contextId }))).rejects.toBeInstanceOf(TaskNotFoundError);
      const follow = mallory.resubscribeTask({ tenant: '', id: task.id });
      await expect(follow.next()).rejects.toBeInstanceOf(TaskNotFoundError);
    });
    // The same answer, word for word, as for a task that never existed: nothing tells them apart.
    const foreign = await rpcError(await rpc('mallory', { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task.id } }));
    const none = await rpcError(await rpc('mallory', { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: `${task.contextId.slice(0, -4)}0000~x` } }));
    expect(foreign.error.code).toBe(-32001);
    expect(none.error.code).toBe(-32001);
  });

  it('finds no task in a forged id: an answer’s entry, a prompt of another session, traversal, extra separators, garbage', async () => {
    const alice = await a2aClient(api.url, await api.token('alice'));
    api.fake.enqueue({ text: 'Other session.' });
    const other = await send(alice, userMessage('Another session'));
    const session = await (await fetch(`${api.url}/sessions/${task.contextId}`, { headers: { authorization: `Bearer ${await api.token('alice')}` } })).json();
    const answerEntry = (session as { messages: { id: string; role: string }[] }).messages.find((message) => message.role === 'assistant')!.id;
    const otherPrompt = other.id.split('~')[1]!;
    const forged = [
      `${task.contextId}~${answerEntry}`,
      `${task.contextId}~${otherPrompt}`,
      `${task.contextId}~${task.id.split('~')[1]}~x`,
      `../${task.contextId}~${task.id.split('~')[1]}`,
      `${task.contextId}`,
      '~',
      '',
      'x'.repeat(5000),
      `${task.contextId}~..`,
    ];
    await changesNothing(async () => {
      for (const id of forged) {
        await expect(alice.getTask({ tenant: '', id, historyLength: undefined }), id.slice(0, 80)).rejects.toBeInstanceOf(TaskNotFoundError);
        await expect(alice.cancelTask({ tenant: '', id, metadata: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
      }
    });
  });

  it('is refused with 401 before anything runs without a token, or with a forged, unsigned, expired or foreign one — the card alone is public', async () => {
    const now = Math.floor(Date.now() / 1000);
    const local = (jwt: SignJWT) => jwt.setProtectedHeader({ alg: 'HS256' }).setIssuer('panto-local').setAudience('panto').setSubject('alice');
    const tokens = [
      null,
      'not-a-jwt',
      await local(new SignJWT({})).setExpirationTime('1h').sign(new Uint8Array(32).fill(7)), // another secret
      await local(new SignJWT({}))
        .setIssuedAt(now - 7200)
        .setExpirationTime(now - 3600)
        .sign(TEST_SECRET), // expired
      await local(new SignJWT({})).sign(TEST_SECRET), // no exp: would never expire
      new UnsecuredJWT({}).setSubject('alice').setIssuer('panto-local').setAudience('panto').setExpirationTime('1h').encode(),
    ];
    const body = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendParams({}) };
    await changesNothing(async () => {
      for (const token of tokens) {
        const response = await fetch(`${api.url}/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `Bearer ${token}` }) },
          body: JSON.stringify(body),
        });
        expect(response.status, String(token).slice(0, 20)).toBe(401);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      }
      // The SDK's client without a token: the card loads (it is public), the call is refused.
      const anonymous = await a2aClient(api.url, null);
      await expect(send(anonymous, userMessage('hi'))).rejects.toThrow(/401/);
    });
  });

  it('answers malformed JSON-RPC with a JSON-RPC error, and runs nothing', async () => {
    const cases: [string, unknown, number][] = [
      ['not JSON', '{"jsonrpc": "2.0", "method": ', -32700],
      ['not UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), -32700],
      ['nested too deep', `${'['.repeat(200)}${']'.repeat(200)}`, -32700],
      ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: task.id } }], -32602],
      ['no jsonrpc', { id: 1, method: 'GetTask', params: { id: task.id } }, -32602],
      ['jsonrpc 1.0', { jsonrpc: '1.0', id: 1, method: 'GetTask', params: { id: task.id } }, -32602],
      ['an object id', { jsonrpc: '2.0', id: { x: 1 }, method: 'GetTask', params: { id: task.id } }, -32602],
      ['no method', { jsonrpc: '2.0', id: 1, params: {} }, -32602],
      ['an unknown method', { jsonrpc: '2.0', id: 1, method: 'DropTables', params: {} }, -32601],
      ['a v0.3 method name', { jsonrpc: '2.0', id: 1, method: 'message/send', params: sendParams({}) }, -32601],
      ['params an array', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: ['hi'] }, -32602],
      ['no message', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }, -32602],
      ['an agent message', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendParams({ role: 'ROLE_AGENT' }) }, -32602],
      ['an empty prompt', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendParams({ parts: [{ text: '  ' }] }) }, -32602],
      ['a file part', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendParams({ parts: [{ url: 'file:///etc/passwd' }] }) }, -32602],
      ['a lone surrogate', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendParams({ parts: [{ text: '\ud800' }] }) }, -32602],
      ['a model name that is no model', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendParams({ metadata: { model: '../../etc' } }) }, -32602],
      [
        'push notifications',
        { jsonrpc: '2.0', id: 1, method: 'CreateTaskPushNotificationConfig', params: { taskId: task.id, url: 'http://169.254.169.254/' } },
        -32003,
      ],
    ];
    await changesNothing(async () => {
      for (const [what, body, code] of cases) {
        const answer = await rpcError(await rpc('alice', body));
        expect(answer.error.code, `${what}: ${JSON.stringify(answer)}`).toBe(code);
        expect(answer.jsonrpc).toBe('2.0');
      }
    });
  });

  it('refuses an A2A-Version it does not speak, and an oversized body with 413', async () => {
    await changesNothing(async () => {
      const old = await rpcError(await rpc('alice', { jsonrpc: '2.0', id: 7, method: 'SendMessage', params: sendParams({}) }, { 'a2a-version': '0.3' }));
      expect(old).toMatchObject({ id: 7, error: { code: -32009 } });
      const big = await rpc('alice', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendParams({ parts: [{ text: 'x'.repeat(70 * 1024) }] }) });
      expect(big.status).toBe(413);
      expect(((await big.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    });
  });

  it('runs a messageId once: the same id with another message is refused, the same message answered as first', async () => {
    const message = { messageId: 'reused-message-id', role: 'ROLE_USER', parts: [{ text: 'first' }] };
    api.fake.enqueue({ text: 'First answer.' });
    const first = (await (await rpc('alice', { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } })).json()) as {
      result: { task: { id: string } };
    };
    expect(first.result.task.id).toContain('~');
    await changesNothing(async () => {
      const reused = await rpcError(
        await rpc('alice', { jsonrpc: '2.0', id: 2, method: 'SendMessage', params: { message: { ...message, parts: [{ text: 'second' }] } } }),
      );
      expect(reused.error.data?.[0]?.metadata?.code).toBe('idempotency_key_reused');
      const replay = await rpc('alice', { jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message } });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.json()).toEqual({ ...first, id: 3 });
      // Another owner's same messageId is their own message, not alice's answer.
      api.fake.enqueue({ text: 'Mallory answer.' });
    });
    const theirs = (await (await rpc('mallory', { jsonrpc: '2.0', id: 4, method: 'SendMessage', params: { message } })).json()) as {
      result: { task: { id: string } };
    };
    expect(theirs.result.task.id).not.toBe(first.result.task.id);
  });
});
