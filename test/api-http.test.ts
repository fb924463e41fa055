/**
 * The HTTP API over HTTP: the real app on loopback, DynamoDB Local and s3rver, a fake LLM
 * server behind the real provider SDKs.
 */
import { acquireSessionLease } from '@panto/aws';
import type { Message } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '@panto/functions/local';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, json, parseSSE, snapshot, startApi, TEST_SECRET } from './api-harness.js';

interface SessionJson {
  id: string;
  created_at: string;
  updated_at: string;
  active_model: { provider: string; model: string };
  title: string | null;
  entry_count: number;
}
interface TurnJson {
  messages: Message[];
  usage: { input_tokens: number; output_tokens: number };
  stop_reason: string;
  incomplete: boolean;
  incomplete_reason?: string;
  error?: { code: string; message: string };
}
interface ContentsJson {
  id: string;
  messages: Message[];
  dangling_user: string | null;
  active_model: { provider: string; model: string };
  usage: { input_tokens: number; output_tokens: number };
  entry_count: number;
}
interface ErrorJson {
  error: { code: string; message: string; field?: string };
}

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi('api-http');
});
afterAll(async () => {
  await api?.close();
});

const roles = (messages: readonly Message[]): string[] => messages.map((message) => message.role);

describe('GET /models', () => {
  it('lists the providers this server has keys for (and offline), the default first, with their models', async () => {
    const response = await api.call('alice', 'GET', '/models');
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      default: unknown;
      providers: { name: string; default_model: string; any_model: boolean; models: { id: string }[] }[];
    };
    expect(body.default).toEqual({ provider: 'anthropic', model: 'claude-test' });
    expect(body.providers.map((provider) => provider.name)).toEqual(['anthropic', 'openai', 'offline']);
    // Both keyed providers have a base URL here (the fake server): any model name goes.
    expect(body.providers[0]).toMatchObject({ default_model: 'claude-test', any_model: true });
    expect(body.providers[1]?.models.map((model) => model.id)).toContain('gpt-5.4');
    // What it offers, POST /sessions accepts.
    for (const provider of body.providers) {
      const created = await api.call('models-owner', 'POST', '/sessions', { provider: provider.name, model: provider.models[0]?.id });
      expect(created.status, provider.name).toBe(201);
    }
  });

  it('needs a token', async () => {
    expect((await api.call(null, 'GET', '/models')).status).toBe(401);
  });
});

describe('POST /sessions', () => {
  it('creates a session with its times and the default model, and keeps a system prompt', async () => {
    const session = await api.newSession('alice', { system: 'You are terse.' });
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(session.created_at)).not.toBeNaN();
    expect(session.updated_at >= session.created_at).toBe(true);
    expect(session.active_model).toEqual({ provider: 'anthropic', model: 'claude-test' });
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${session.id}`), 200);
    expect(contents.messages).toEqual([
      { role: 'system', content: 'You are terse.', mode: 'replace', id: expect.any(String), timestamp: expect.any(String), accepts_prompt: true },
    ]);
    expect(contents.dangling_user).toBeNull();
  });

  it("uses the session's own provider and model for its turns when it chose them", async () => {
    const session = await api.newSession('alice', { provider: 'openai', model: 'gpt-test' });
    expect(session.active_model).toEqual({ provider: 'openai', model: 'gpt-test' });
    api.fake.enqueue({ text: 'from openai' });
    const before = api.fake.requests.length;
    const turn = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'hi' }), 200);
    expect(api.fake.requests[before]?.path).toBe('/v1/chat/completions');
    expect(api.fake.requests[before]?.body).toMatchObject({ model: 'gpt-test' });
    expect(turn.messages[1]).toMatchObject({ role: 'assistant', provider: 'openai', model: 'gpt-test' });
  });

  it('refuses an unknown provider with 400 naming the field, and creates nothing', async () => {
    const before = await snapshot(api.aws);
    const error = await json<ErrorJson>(await api.call('alice', 'POST', '/sessions', { provider: 'nonesuch' }), 400);
    expect(error.error).toMatchObject({ code: 'invalid_body', field: 'provider' });
    expect(await snapshot(api.aws)).toEqual(before);
  });

  it('refuses a model its provider does not offer, or one past its end of life, with 400 naming model, and creates nothing', async () => {
    const before = await snapshot(api.aws);
    const wrong = await json<ErrorJson>(await api.call('alice', 'POST', '/sessions', { provider: 'offline', model: 'claude-opus' }), 400);
    expect(wrong.error).toEqual({
      code: 'invalid_body',
      field: 'model',
      message: 'model: unknown offline model "claude-opus": expected one of offline-1',
    });
    expect(await snapshot(api.aws)).toEqual(before);
    // The harness's providers have base URLs (servers of their own), which name their own models:
    // the offline provider has none, so its catalog is what counts.
    const offline = await api.newSession('alice', { provider: 'offline', model: 'offline-1' });
    expect(offline.active_model).toEqual({ provider: 'offline', model: 'offline-1' });
  });
});

describe('GET /sessions', () => {
  it("lists the caller's sessions newest first, a page at a time", async () => {
    const owner = 'lister';
    const created: string[] = [];
    for (let i = 0; i < 3; i++) created.push((await api.newSession(owner)).id);
    await api.newSession('someone-else');
    const first = await json<{ sessions: SessionJson[]; next_cursor: string | null }>(await api.call(owner, 'GET', '/sessions?limit=2'), 200);
    expect(first.sessions.map((s) => s.id)).toEqual([created[2], created[1]]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await json<{ sessions: SessionJson[]; next_cursor: string | null }>(
      await api.call(owner, 'GET', `/sessions?limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`),
      200,
    );
    expect(second.sessions.map((s) => s.id)).toEqual([created[0]]);
    expect(second.next_cursor).toBeNull();
    // A last page that is exactly full has no next page either.
    const whole = await json<{ sessions: SessionJson[]; next_cursor: string | null }>(await api.call(owner, 'GET', '/sessions?limit=3'), 200);
    expect(whole.sessions.map((s) => s.id)).toEqual([created[2], created[1], created[0]]);
    expect(whole.next_cursor).toBeNull();
  });

  it('refuses a query parameter given more than once with 400 naming it, on every route, and changes nothing', async () => {
    const session = await api.newSession();
    const before = await snapshot(api.aws);
    for (const [method, path, field] of [
      ['GET', '/sessions?limit=1&limit=2', 'limit'],
      ['GET', '/sessions?limit=1&limit=1', 'limit'],
      ['GET', '/sessions?limit=5&cursor=a&cursor=b', 'cursor'],
      ['GET', '/sessions?li%6Dit=1&limit=2', 'limit'],
      ['GET', `/sessions/${session.id}?x=1&x=2`, 'x'],
      ['POST', '/sessions?x=1&x=2', 'x'],
      ['DELETE', `/sessions/${session.id}?force&force`, 'force'],
    ] as const) {
      const error = await json<ErrorJson>(await api.call('alice', method, path, method === 'POST' ? {} : undefined), 400);
      expect(error.error, `${method} ${path}`).toEqual({ code: 'invalid_query', message: `${field}: given more than once`, field });
    }
    expect(await snapshot(api.aws)).toEqual(before);
  });

  it('answers a bad limit or cursor with 400 naming it', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=not-a-cursor', 'cursor'],
      ['colour=blue', 'colour'],
    ] as const) {
      const error = await json<ErrorJson>(await api.call('alice', 'GET', `/sessions?${query}`), 400);
      expect(error.error.field).toBe(field);
    }
  });
});

describe('POST /sessions/{id}/messages', () => {
  it('runs a turn and answers with the messages it added, its usage and stop reason', async () => {
    const session = await api.newSession();
    api.fake.enqueue({ text: 'Hello there.', usage: { input: 12, output: 3 } });
    const turn = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'hi' }), 200);
    expect(roles(turn.messages)).toEqual(['user', 'assistant']);
    expect(turn.messages[0]).toMatchObject({ role: 'user', content: 'hi' });
    expect(turn.messages[1]).toMatchObject({ content: [{ type: 'text', text: 'Hello there.' }] });
    expect(turn).toMatchObject({ stop_reason: 'end_turn', incomplete: false, usage: { input_tokens: 12, output_tokens: 3 } });
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${session.id}`), 200);
    expect(contents.messages).toEqual(turn.messages);
    expect(contents.usage).toMatchObject({ input_tokens: 12, output_tokens: 3 });
  });

  it("runs the service's tool and persists the call and its result", async () => {
    const session = await api.newSession();
    api.fake.enqueue({ toolCalls: [{ id: 'toolu_1', name: 'current_time', input: {} }] }, { text: 'It is now.' });
    const turn = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'time?' }), 200);
    expect(roles(turn.messages)).toEqual(['user', 'assistant', 'tool_result', 'assistant']);
    expect(turn.messages[2]).toMatchObject({ tool_call_id: 'toolu_1', tool_name: 'current_time', is_error: false });
    expect((turn.messages[2] as { content: string }).content).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('answers 502 when the provider fails, with the prompt persisted as the dangling user', async () => {
    const session = await api.newSession();
    api.fake.enqueue({ status: 400, errorBody: { type: 'error', error: { type: 'invalid_request_error', message: 'bad' } } });
    const failed = await json<TurnJson & ErrorJson>(await api.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'will fail' }), 502);
    expect(failed.error.code).toBe('provider_error');
    expect(failed).toMatchObject({ stop_reason: 'error', incomplete: true, incomplete_reason: 'provider_error' });
    expect(roles(failed.messages)).toEqual(['user']);
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${session.id}`), 200);
    expect(contents.dangling_user).toBe('will fail');
    expect(contents.messages).toEqual([]);
    // Releasing the lease was the turn's last write: the list counts the prompt and moves the session up.
    const list = await json<{ sessions: Array<{ id: string; entry_count: number; updated_at: string }> }>(
      await api.call('alice', 'GET', '/sessions?limit=100'),
      200,
    );
    const listed = list.sessions.find((each) => each.id === session.id);
    expect(listed?.entry_count).toBe(contents.entry_count);
    expect(listed!.updated_at > session.updated_at).toBe(true);
  });

  it('answers 409 while another turn holds the session, and writes nothing, not even the prompt', async () => {
    const session = await api.newSession();
    const lease = await acquireSessionLease({
      client: api.aws.dynamo,
      tableName: api.aws.tableName,
      owner: 'alice',
      sessionId: session.id,
      leaseMs: 60_000,
    });
    const before = await snapshot(api.aws);
    const requests = api.fake.requests.length;
    try {
      for (const [path, body] of [
        ['messages', { text: 'second' }],
        ['messages/stream', { text: 'second' }],
        ['compact', {}],
      ] as const) {
        const error = await json<ErrorJson>(await api.call('alice', 'POST', `/sessions/${session.id}/${path}`, body), 409);
        expect(error.error.code).toBe('session_busy');
      }
      expect(await snapshot(api.aws)).toEqual(before);
      expect(api.fake.requests.length).toBe(requests);
    } finally {
      await lease.release();
    }
  });

  it('refuses a body that is not UTF-8 with 400 invalid_encoding, storing nothing and calling no model', async () => {
    const session = await api.newSession();
    const before = await snapshot(api.aws);
    const requests = api.fake.requests.length;
    const latin1 = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'latin1')); // é as the single byte 0xE9
    for (const [path, body] of [
      [`/sessions/${session.id}/messages`, latin1('{"text":"café"}')],
      [`/sessions/${session.id}/messages/stream`, latin1('{"text":"café"}')],
      ['/sessions', latin1('{"system":"Tu es un café."}')],
      [`/sessions/${session.id}/compact`, latin1('{"instructions":"résumé"}')],
      [`/sessions/${session.id}/messages`, Uint8Array.from([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])], // a UTF-16 surrogate
    ] as const) {
      const response = await fetch(`${api.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await api.token('alice')}`, 'content-type': 'application/json' },
        body: body,
      });
      const error = await json<ErrorJson>(response, 400);
      expect(error.error, path).toEqual({ code: 'invalid_encoding', message: 'the request body is not valid UTF-8' });
    }
    expect(await snapshot(api.aws)).toEqual(before);
    expect(api.fake.requests.length).toBe(requests);
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const session = await api.newSession();
    const path = `/sessions/${session.id}/messages`;
    const cases: [unknown, string, string | undefined][] = [
      ['{"text": ', 'invalid_json', undefined],
      [{}, 'invalid_body', 'text'],
      [{ text: 42 }, 'invalid_body', 'text'],
      [{ text: '   ' }, 'invalid_body', 'text'],
      [{ text: 'hi', extra: true }, 'invalid_body', 'extra'],
      [JSON.stringify(['hi']), 'invalid_body', ''],
      ['null', 'invalid_body', ''],
    ];
    for (const [body, code, field] of cases) {
      const error = await json<ErrorJson>(await api.call('alice', 'POST', path, body), 400);
      expect(error.error.code).toBe(code);
      expect(error.error.field).toBe(field);
    }
    const wrongType = await json<ErrorJson>(await api.call('alice', 'POST', path, { text: 42 }), 400);
    expect(wrongType.error.message).toBe('text: expected string');
    const missing = await json<ErrorJson>(await api.call('alice', 'POST', path, {}), 400);
    expect(missing.error.message).toBe('text: required');
  });
});

describe('the deadline', () => {
  let slow: ApiHarness;
  beforeAll(async () => {
    slow = await startApi('api-deadline', { limits: { deadlineMs: 400 } });
  });
  afterAll(async () => {
    await slow?.close();
  });

  it('stops a turn at the deadline with everything so far persisted, and says it is incomplete', async () => {
    const session = await json<SessionJson>(await slow.call('alice', 'POST', '/sessions', {}), 201);
    slow.fake.enqueue({ toolCalls: [{ id: 'toolu_9', name: 'current_time', input: {} }] }, { text: 'a long answer that never finishes', hang: true });
    const turn = await json<TurnJson>(await slow.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'slow' }), 200);
    expect(turn).toMatchObject({ incomplete: true, incomplete_reason: 'deadline', stop_reason: 'aborted' });
    expect(roles(turn.messages)).toEqual(['user', 'assistant', 'tool_result', 'assistant']);
    expect(turn.messages[3]).toMatchObject({ stop_reason: 'aborted' });
    const contents = await json<ContentsJson>(await slow.call('alice', 'GET', `/sessions/${session.id}`), 200);
    expect(contents.messages).toEqual(turn.messages);
  });
});

describe('POST /sessions/{id}/messages/stream', () => {
  it('streams text deltas, each persisted message, and the end', async () => {
    const session = await api.newSession();
    api.fake.enqueue({ toolCalls: [{ id: 'toolu_s', name: 'current_time', input: {} }] }, { text: 'Streaming works fine.' });
    const response = await api.call('alice', 'POST', `/sessions/${session.id}/messages/stream`, { text: 'stream it' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = parseSSE(await response.text());
    const messages = events.filter((e) => e.event === 'message').map((e) => (e.data as { message: Message }).message);
    expect(roles(messages)).toEqual(['user', 'assistant', 'tool_result', 'assistant']);
    const deltas = events.filter((e) => e.event === 'text-delta').map((e) => (e.data as { delta: string }).delta);
    expect(deltas.join('')).toBe('Streaming works fine.');
    expect(events.at(-1)).toEqual({
      event: 'end',
      data: expect.objectContaining({ stop_reason: 'end_turn', incomplete: false }),
    });
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${session.id}`), 200);
    expect(contents.messages).toEqual(messages);
  });
});

describe('a silent stream', () => {
  let quiet: ApiHarness;
  beforeAll(async () => {
    quiet = await startApi('api-keep-alive', { limits: { streamKeepAliveMs: 100 } });
  });
  afterAll(async () => {
    await quiet?.close();
  });

  it('sends keep-alive comments while the model is silent (a proxy in front must not cut it), and no event for them', async () => {
    const session = await json<SessionJson>(await quiet.call('alice', 'POST', '/sessions', {}), 201);
    quiet.fake.enqueue({ text: 'after a long think', pauseAfterDeltas: 1 });
    const response = await quiet.call('alice', 'POST', `/sessions/${session.id}/messages/stream`, { text: 'think hard' });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let raw = '';
    while (!raw.includes(': keep-alive\n\n')) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`the stream ended without a keep-alive: ${raw}`);
      raw += decoder.decode(chunk.value, { stream: true });
    }
    quiet.fake.resume();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) raw += decoder.decode(chunk.value, { stream: true });
    const events = parseSSE(raw);
    expect(events.map((e) => e.event).filter((name) => name !== 'text-delta')).toEqual(['message', 'message', 'end']);
    expect(events.at(-1)?.data).toMatchObject({ stop_reason: 'end_turn', incomplete: false });
  });
});

describe('compact, export and delete', () => {
  it('compacts a session into a summary its next turn starts from', async () => {
    const session = await api.newSession();
    api.fake.enqueue({ text: 'first answer' }, { text: 'Summary: the user said hi.' });
    await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'hi' }), 200);
    const result = await json<{ summary: string }>(await api.call('alice', 'POST', `/sessions/${session.id}/compact`, { instructions: 'keep it short' }), 200);
    expect(result.summary).toBe('Summary: the user said hi.');
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${session.id}`), 200);
    expect(contents.messages).toEqual([expect.objectContaining({ role: 'compaction', summary: 'Summary: the user said hi.' })]);
  });

  it('answers 409 to compacting a session with nothing to compact', async () => {
    const session = await api.newSession();
    expect((await json<ErrorJson>(await api.call('alice', 'POST', `/sessions/${session.id}/compact`), 409)).error.code).toBe('nothing_to_compact');
  });

  it('exports the session as JSONL to the bucket, with a URL that downloads it', async () => {
    const session = await api.newSession('alice', { system: 'be brief' });
    api.fake.enqueue({ text: 'exported answer' });
    await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${session.id}/messages`, { text: 'export me' }), 200);
    const exported = await json<{ bucket: string; key: string; url: string; bytes: number; entries: number; expires_in: number }>(
      await api.call('alice', 'POST', `/sessions/${session.id}/export`, { expires_in: 600 }),
      200,
    );
    expect(exported).toMatchObject({ bucket: api.aws.bucket, entries: 3, expires_in: 600 });
    expect(exported.key.startsWith('exports/')).toBe(true);
    const download = await fetch(exported.url);
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(bytes.length).toBe(exported.bytes);
    const decoded = decodeSession(bytes, exported.key);
    expect(decoded.header.id).toBe(session.id);
    expect(decoded.entries.map((entry) => (entry.type === 'message' ? entry.message.role : entry.type))).toEqual(['system', 'user', 'assistant']);
  });

  it('deletes a session: 204, then 404 for it everywhere', async () => {
    const session = await api.newSession();
    expect((await api.call('alice', 'DELETE', `/sessions/${session.id}`)).status).toBe(204);
    expect((await json<ErrorJson>(await api.call('alice', 'GET', `/sessions/${session.id}`), 404)).error.code).toBe('session_not_found');
    expect((await api.call('alice', 'DELETE', `/sessions/${session.id}`)).status).toBe(404);
  });
});

describe('refusals', () => {
  it("answers 404, the same as for an unknown id, on every route of another owner's session, and changes nothing", async () => {
    const session = await api.newSession('owner-a');
    const before = await snapshot(api.aws);
    const unknown = await json<ErrorJson>(await api.call('owner-b', 'GET', '/sessions/0190a1b2-0000-7000-8000-000000000000'), 404);
    for (const [method, path] of [
      ['GET', ''],
      ['POST', '/messages'],
      ['POST', '/messages/stream'],
      ['POST', '/compact'],
      ['POST', '/export'],
      ['DELETE', ''],
    ] as const) {
      const body = method === 'POST' && path.startsWith('/messages') ? { text: 'mine now' } : undefined;
      const error = await json<ErrorJson>(await api.call('owner-b', method, `/sessions/${session.id}${path}`, body), 404);
      expect(error).toEqual(unknown);
    }
    expect(await snapshot(api.aws)).toEqual(before);
  });

  it('answers 404 for malformed and ../ ids without touching anything', async () => {
    for (const id of ['..', '..%2F..%2Fetc%2Fpasswd', '%2E%2E', 'a%20b', 'x'.repeat(200), '%00']) {
      const response = await api.call('alice', 'GET', `/sessions/${id}`);
      expect(response.status, id).toBe(404);
    }
  });

  it('answers 401 without a valid token', async () => {
    expect((await json<ErrorJson>(await api.call(null, 'GET', '/sessions'), 401)).error.code).toBe('unauthorized');
    const bad = await api.call(null, 'GET', '/sessions', undefined, { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x' });
    expect(bad.status).toBe(401);
  });

  it('answers 401 to a validly signed token without exp on every method, and changes nothing', async () => {
    const session = await api.newSession();
    const forever = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuer(LOCAL_ISSUER)
      .setAudience(LOCAL_AUDIENCE)
      .setIssuedAt()
      .sign(TEST_SECRET);
    const before = await snapshot(api.aws);
    const requests = api.fake.requests.length;
    for (const [method, path, body] of [
      ['GET', '/sessions', undefined],
      ['GET', `/sessions/${session.id}`, undefined],
      ['POST', '/sessions', {}],
      ['POST', `/sessions/${session.id}/messages`, { text: 'hi' }],
      ['POST', `/sessions/${session.id}/export`, {}],
      ['DELETE', `/sessions/${session.id}`, undefined],
    ] as const) {
      const error = await json<ErrorJson>(await api.call(null, method, path, body, { authorization: `Bearer ${forever}` }), 401);
      expect(error.error.code, `${method} ${path}`).toBe('unauthorized');
    }
    expect(await snapshot(api.aws)).toEqual(before);
    expect(api.fake.requests.length).toBe(requests);
  });

  it('answers 413 to a body over the limit, with or without a length header', async () => {
    const session = await api.newSession();
    const huge = JSON.stringify({ text: 'x'.repeat(300 * 1024) });
    expect((await json<ErrorJson>(await api.call('alice', 'POST', `/sessions/${session.id}/messages`, huge), 413)).error.code).toBe('payload_too_large');
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(huge));
        controller.close();
      },
    });
    const response = await fetch(`${api.url}/sessions/${session.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await api.token('alice')}` },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
  });

  it('reports no internal failure for any of the above', () => {
    expect(api.logged).toEqual([]);
  });
});
