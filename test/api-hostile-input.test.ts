/**
 * Input nobody should be able to poison a session with, through the HTTP API: JSON nested
 * thousands of levels deep (in an import, in a model's tool call, already stored), hostile
 * titles and model names, bad timestamps, an import's id, a body over the limit on a
 * kept-alive connection, and the same Idempotency-Key with and without a default.
 */
import { connect, type Socket } from 'node:net';
import { DynamoStore } from '@panto/aws';
import { newId, SESSION_FORMAT_VERSION } from '@panto/core';
import { encodeHeader } from '@panto/core/store-kit';
import { RecordFactory, waitUntil } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSession } from '../packages/aws/src/jsonl/write-session.js';
import { type ApiHarness, json, parseSSE, snapshot, startApi } from './api-harness.js';

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi('hostile', { limits: { bodyLimitBytes: 1024 * 1024 } });
});
afterAll(async () => api.close());

interface SessionJson {
  id: string;
  title: string | null;
  entry_count: number;
}
interface ErrorJson {
  error: { code: string; message: string; field?: string; line?: number };
}
type MessageJson = { role: string; content: unknown; id?: string; unreadable?: string; is_error?: boolean };

/** `{"x":[[…]]}` with `levels` levels in all, as text (JSON.stringify could not write it). */
function deepInput(levels: number): string {
  return `{"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
}

/** A session log whose assistant entry calls a tool with `input` (JSON text), and its result. */
function logWithInput(input: string, timestamp = '2026-12-01T10:00:00.000Z'): string {
  const [user, assistant, result] = [newId(), newId(), newId()];
  const usage = '{"input_tokens":1,"output_tokens":1,"cache_read_tokens":0,"cache_write_tokens":0}';
  return [
    encodeHeader({ type: 'session', version: SESSION_FORMAT_VERSION, id: newId(), timestamp }).trimEnd(),
    `{"type":"message","id":"${user}","parent_id":null,"timestamp":"${timestamp}","message":{"role":"user","content":"hi","provider":"anthropic","model":"claude-test"}}`,
    `{"type":"message","id":"${assistant}","parent_id":"${user}","timestamp":"${timestamp}","batch_size":2,"message":{"role":"assistant","content":[{"type":"tool_call","id":"toolu_1","name":"probe","input":${input}}],"provider":"anthropic","model":"claude-test","usage":${usage},"stop_reason":"tool_use"}}`,
    `{"type":"message","id":"${result}","parent_id":"${assistant}","timestamp":"${timestamp}","message":{"role":"tool_result","tool_call_id":"toolu_1","tool_name":"probe","content":"ok","is_error":false}}`,
    '',
  ].join('\n');
}

async function importText(owner: string, body: string): Promise<Response> {
  return fetch(`${api.url}/sessions/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await api.token(owner)}`, 'content-type': 'application/x-ndjson' },
    body,
  });
}

describe('JSON nested deeper than 128 levels', { timeout: 60_000 }, () => {
  it.each([5_000, 100_000])(
    'refuses an import whose tool call input nests %i levels with 400 invalid_session naming the line, and stores nothing',
    async (levels) => {
      const before = await snapshot(api.aws);
      const error = await json<ErrorJson>(await importText('alice', logWithInput(deepInput(levels))), 400);
      expect(error.error).toMatchObject({ code: 'invalid_session', line: 3 });
      expect(error.error.message).toMatch(/^line 3: a tool call input is nested deeper than 128 levels/);
      expect(await snapshot(api.aws)).toEqual(before);
      expect(api.logged).toEqual([]);
    },
  );

  it('imports a tool call input of 128 levels, and it reads back whole', async () => {
    const imported = await json<SessionJson>(await importText('alice', logWithInput(deepInput(128))), 201);
    const read = await json<{ messages: MessageJson[] }>(await api.call('alice', 'GET', `/sessions/${imported.id}`), 200);
    expect(read.messages[1]!.unreadable).toBeUndefined();
    expect(JSON.stringify(read.messages[1]!.content)).toContain('[[[');
  });

  it.each([5_000, 100_000])(
    'keeps a session stored with a %i-level input before the limit readable: the entry is marked, turns, forks and exports work',
    async (levels) => {
      // Written as an older panto stored it: the lines as they came, no depth rule.
      const id = newId();
      await writeSession({
        dynamo: api.aws.dynamo,
        tableName: api.aws.tableName,
        owner: 'alice',
        s3: { client: api.aws.s3, bucket: api.aws.bucket },
        source: 'legacy',
        stream: [logWithInput(deepInput(levels))],
        sessionId: () => id,
        ttlSeconds: null,
        now: new Date(),
        rules: 'stored',
      });
      const read = await json<{ messages: MessageJson[] }>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
      expect(read.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool_result']);
      expect(read.messages[1]).toMatchObject({
        content: [{ type: 'tool_call', id: 'toolu_1', input: {} }],
        unreadable: expect.stringMatching(/^a tool call input is nested deeper than 128 levels/),
      });
      const entries = await json<{ entries: { unreadable?: string }[] }>(await api.call('alice', 'GET', `/sessions/${id}/entries`), 200);
      expect(entries.entries.map((entry) => entry.unreadable !== undefined)).toEqual([false, true, false]);
      api.fake.enqueue({ text: 'still here' });
      const turn = await json<{ messages: MessageJson[] }>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'go on' }), 200);
      expect(turn.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'still here' }] });
      const fork = await json<SessionJson>(await api.call('alice', 'POST', `/sessions/${id}/fork`, { entry_id: read.messages[2]!.id }), 201);
      const forked = await json<{ messages: MessageJson[] }>(await api.call('alice', 'GET', `/sessions/${fork.id}`), 200);
      expect(forked.messages[1]).toMatchObject({ content: [{ type: 'tool_call', input: {} }] });
      await json(await api.call('alice', 'POST', `/sessions/${id}/export`), 200);
      expect(api.logged).toEqual([]);
    },
  );

  describe.each(['anthropic', 'openai'] as const)('a model (%s) that calls a tool with deeply nested arguments', (protocol) => {
    let provider: ApiHarness;
    beforeAll(async () => {
      provider = protocol === 'anthropic' ? api : await startApi('hostile-openai', { provider: 'openai' });
    });
    afterAll(async () => {
      if (protocol === 'openai') await provider.close();
    });

    it.each([5_000, 20_000, 100_000])(
      'answers a turn at %i levels 200: the call gets an error result the model sees, and the session reads',
      async (levels) => {
        const session = await json<SessionJson>(await provider.call('alice', 'POST', '/sessions', {}), 201);
        provider.fake.enqueue({ toolCalls: [{ name: 'probe', input: {}, arguments: deepInput(levels) }] }, { text: 'flatter next time' });
        const turn = await json<{ messages: MessageJson[] }>(
          await provider.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'call it' }),
          200,
        );
        expect(turn.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool_result', 'assistant']);
        expect(turn.messages[1]).toMatchObject({ content: [{ type: 'tool_call', name: 'probe', input: {} }] });
        expect(turn.messages[2]).toMatchObject({
          is_error: true,
          content: expect.stringMatching(/^Tool call refused: its input is nested deeper than 128 levels/),
        });
        // The model saw the refusal.
        expect(JSON.stringify(provider.fake.requests.at(-1)?.body)).toContain('nested deeper than 128 levels');
        const read = await json<{ messages: MessageJson[] }>(await provider.call('alice', 'GET', `/sessions/${session.id}`), 200);
        expect(read.messages).toHaveLength(4);
        expect(provider.logged).toEqual([]);
      },
    );

    it('answers a streamed turn at 20,000 levels with every event readable and an end without error', async () => {
      const session = await json<SessionJson>(await provider.call('alice', 'POST', '/sessions', {}), 201);
      provider.fake.enqueue({ toolCalls: [{ name: 'probe', input: {}, arguments: deepInput(20_000) }] }, { text: 'ok' });
      const response = await provider.call('alice', 'POST', `/sessions/${session.id}/messages/stream`, { text: 'call it' });
      expect(response.status).toBe(200);
      const events = parseSSE(await response.text());
      const end = events.at(-1)!;
      expect(end.event).toBe('end');
      expect(end.data).toMatchObject({ incomplete: false, stop_reason: 'end_turn' });
      const stored = events.filter((event) => event.event === 'message').map((event) => (event.data as { message: MessageJson }).message);
      expect(stored.map((message) => message.role)).toEqual(['user', 'assistant', 'tool_result', 'assistant']);
      expect(stored[2]!.is_error).toBe(true);
    });
  });

  it('refuses a request body nested deeper than 128 levels with 400 invalid_json', async () => {
    const session = await api.newSession();
    for (const levels of [200, 100_000]) {
      const error = await json<ErrorJson>(
        await api.call('alice', 'POST', `/sessions/${session.id}/messages`, `{"text":"hi","parent_id":${deepInput(levels)}}`),
        400,
      );
      expect(error.error).toEqual({
        code: 'invalid_json',
        message: 'the request body is nested deeper than 128 levels, the limit for JSON from outside panto',
      });
    }
    const again = await json<{ entry_count: number }>(await api.call('alice', 'GET', `/sessions/${session.id}`), 200);
    expect(again.entry_count).toBe(0);
  });
});

describe('POST /sessions/import', () => {
  it('refuses a timestamp that is not ISO 8601, naming the line', async () => {
    const text = logWithInput('{}').replace(/"timestamp":"[^"]+"(?=,"batch_size")/, '"timestamp":"yesterday"');
    const error = await json<ErrorJson>(await importText('alice', text), 400);
    expect(error.error).toEqual({ code: 'invalid_session', message: 'line 3: timestamp "yesterday" is not an ISO-8601 time', line: 3 });
    const header = await json<ErrorJson>(await importText('alice', logWithInput('{}', '2026-12-01 10:00')), 400);
    expect(header.error.line).toBe(1);
  });

  it('says to use --data-binary when the log arrives with its newlines stripped (curl -d @file)', async () => {
    const error = await json<ErrorJson>(await importText('alice', logWithInput('{}').replaceAll('\n', '')), 400);
    expect(error.error.message).toMatch(/^line 1: not valid JSON \(the body is one line of JSON objects run together: .*curl --data-binary @file/);
  });
});

describe('PATCH /sessions/{id}: titles', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['BEL', 'ring\u0007'],
    ['an ANSI escape', '\u001b[31mred\u001b[0m'],
    ['a newline', 'two\nlines'],
    ['a bidi override', 'invoice\u202Egnp.exe'],
    ['a bidi isolate', 'a\u2066b\u2069'],
    ['a lone surrogate', '\ud800x'],
  ])('refuses a title with %s, 400 naming title, and keeps the old one', async (_what, title) => {
    const session = await api.newSession();
    await json(await api.call('alice', 'PATCH', `/sessions/${session.id}`, { title: 'kept' }), 200);
    const error = await json<ErrorJson>(await api.call('alice', 'PATCH', `/sessions/${session.id}`, JSON.stringify({ title })), 400);
    expect(error.error).toMatchObject({ code: 'invalid_body', field: 'title' });
    const list = await json<{ sessions: SessionJson[] }>(await api.call('alice', 'GET', '/sessions'), 200);
    expect(list.sessions.find((each) => each.id === session.id)?.title).toBe('kept');
  });

  it('refuses a title with nothing visible (zero-width characters only)', async () => {
    const session = await api.newSession();
    const error = await json<ErrorJson>(await api.call('alice', 'PATCH', `/sessions/${session.id}`, { title: '\u200b\u200d\ufeff' }), 400);
    expect(error.error).toEqual({ code: 'invalid_body', field: 'title', message: 'title: must contain a visible character' });
  });

  it('keeps emoji, accents and right-to-left scripts', async () => {
    const session = await api.newSession();
    const title = 'Ünïcode 👩‍💻 שלום';
    const renamed = await json<SessionJson>(await api.call('alice', 'PATCH', `/sessions/${session.id}`, { title }), 200);
    expect(renamed.title).toBe(title);
  });

  it('titles a session from its first prompt without the control characters it held', async () => {
    const session = await api.newSession();
    api.fake.enqueue({ text: 'ok' });
    await json(await api.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: '\u001b[2Jfix\u0007 the \u202Ebuild' }), 200);
    const list = await json<{ sessions: SessionJson[] }>(await api.call('alice', 'GET', '/sessions'), 200);
    expect(list.sessions.find((each) => each.id === session.id)?.title).toBe('[2Jfix the build');
  });
});

describe('model names', () => {
  it.each([
    ['NUL', 'gpt\u0000x'],
    ['a newline', 'gpt\nx'],
    ['__proto__', '__proto__'],
    ['markup', '<script>alert(1)</script>'],
    ['a space', 'my model'],
    ['over 200 characters', `m${'x'.repeat(200)}`],
  ])('refuses a model with %s, 400 naming model, even for a provider with a base URL', async (_what, model) => {
    for (const [method, path] of [
      ['POST', '/sessions'],
      ['PATCH', `/sessions/${(await api.newSession()).id}`],
    ] as const) {
      const error = await json<ErrorJson>(await api.call('alice', method, path, JSON.stringify({ provider: 'anthropic', model })), 400);
      expect(error.error).toMatchObject({ code: 'invalid_body', field: 'model' });
    }
  });

  it('takes the names vendors, Bedrock, Ollama and Hugging Face use', async () => {
    for (const model of [
      'claude-sonnet-5-5',
      'us.anthropic.claude-sonnet-4-20250514-v1:0',
      'llama3.1:8b',
      'Qwen/Qwen2.5-Coder-32B-Instruct',
      'gpt-4o-mini-2024-07-18',
    ]) {
      await json(await api.call('alice', 'POST', '/sessions', { provider: 'anthropic', model }), 201);
    }
  });
});

describe('a body over the limit', () => {
  it('is answered 413 with Connection: close, so that no request is lost on the connection', async () => {
    const token = await api.token('alice');
    const { port } = new URL(api.url);
    const body = 'x'.repeat(2 * 1024 * 1024);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? resolve(text) : reject(error)));
      socket.write(
        `POST /sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n`,
      );
      socket.write(body);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect(answer.toLowerCase()).not.toContain('keep-alive');
  });

  it('is refused by its length header alone, before a byte of it is sent', async () => {
    const token = await api.token('alice');
    const { port } = new URL(api.url);
    const before = await snapshot(api.aws);
    // Only the head goes out; the socket is held open, so the answer cannot wait for a body.
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        if (text.includes('\r\n\r\n')) socket.destroy();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
      socket.write(
        `POST /sessions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`,
      );
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(await snapshot(api.aws)).toEqual(before);
  });

  it('is refused when it comes chunked, with no length header to go by', async () => {
    const session = await api.newSession();
    const before = await snapshot(api.aws);
    const chunk = new TextEncoder().encode(`{"text":"${'x'.repeat(64 * 1024)}`);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Four times the limit, then the rest of the JSON: never read that far.
        if (sent++ < 16) controller.enqueue(chunk);
        else {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
        }
      },
    });
    const response = await fetch(`${api.url}/sessions/${session.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await api.token('alice')}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(((await response.json()) as ErrorJson).error.code).toBe('payload_too_large');
    expect(await snapshot(api.aws)).toEqual(before);
  });
});

describe('Idempotency-Key', () => {
  it('treats a request that leaves out on_disconnect as the one that names its default', async () => {
    const session = await api.newSession();
    api.fake.enqueue({ text: 'once' });
    const headers = { 'idempotency-key': `key-${newId()}` };
    const first = await json<{ messages: unknown[] }>(await api.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'hi' }, headers), 200);
    const replay = await api.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'hi', on_disconnect: 'continue' }, headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(replay, 200)).toEqual(first);
    const other = await api.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'hi', on_disconnect: 'abort' }, headers);
    expect((await json<ErrorJson>(other, 422)).error.code).toBe('idempotency_key_reused');
  });
});

describe('followers of a session that stop reading', { timeout: 60_000 }, () => {
  let stalling: ApiHarness;
  beforeAll(async () => {
    stalling = await startApi('stall', { limits: { streamStallMs: 500 } });
  });
  afterAll(async () => stalling.close());

  /** A session of 4 MB: 40 prompts of 100 KB, appended as an older turn would have. */
  async function bigSession(): Promise<string> {
    const store = await DynamoStore.create({ client: stalling.aws.dynamo, tableName: stalling.aws.tableName, owner: 'alice' });
    const f = new RecordFactory('big');
    for (let i = 0; i < 40; i++) await store.appendMessages([f.user(`${i} ${'x'.repeat(100 * 1024)}`, 'anthropic', 'claude-test')]);
    return store.sessionId();
  }

  /** Connections that ask for the events and then read nothing. */
  async function stalledFollowers(id: string, count: number): Promise<Socket[]> {
    const request = `GET /sessions/${id}/events?from=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${await stalling.token('alice')}\r\n\r\n`;
    return Array.from({ length: count }, () => {
      const socket = connect(Number(new URL(stalling.url).port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(request);
      socket.pause();
      return socket;
    });
  }

  it('disconnects every follower that takes nothing within the stall limit, after the end too', async () => {
    const id = await bigSession();
    const closedBefore = stalling.closedConnections();
    const sockets = await stalledFollowers(id, 10);
    await waitUntil(() => stalling.closedConnections() - closedBefore >= 10, { timeoutMs: 10_000, message: 'the server closed the 10 stalled connections' });
    for (const socket of sockets) socket.destroy();
    expect(stalling.logged).toEqual([]);
  });

  it('sends a follower that reads every message and the end, and closes the stream', async () => {
    const id = await bigSession();
    const response = await stalling.call('alice', 'GET', `/sessions/${id}/events?from=0`);
    const events = parseSSE(await response.text());
    expect(events.filter((event) => event.event === 'message')).toHaveLength(40);
    expect(events.at(-1)?.event).toBe('end');
  });
});
