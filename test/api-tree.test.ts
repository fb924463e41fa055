/**
 * The session tree over HTTP: the real app on loopback, DynamoDB Local and s3rver, a fake
 * LLM server. Each route, its 400/404/409 rules, owner isolation, and the round trip fork →
 * export → import.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { acquireSessionLease, DynamoStore } from '@panto/aws';
import type { Message } from '@panto/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, json, parseSSE, snapshot, startApi } from './api-harness.js';

type MessageJson = Message & { id?: string; timestamp?: string };
interface SessionJson {
  id: string;
  title: string | null;
  entry_count: number;
  active_model: { provider: string; model: string };
}
interface ContentsJson {
  id: string;
  messages: MessageJson[];
  dangling_user: string | null;
}
interface TurnJson {
  messages: MessageJson[];
}
interface EntryJson {
  id: string;
  parent_id: string | null;
  timestamp: string;
  type: string;
  message?: Message;
  summary?: string;
}
interface TreeJson {
  active_leaf: string | null;
  leaves: { id: string; timestamp: string; preview: string; unanswered: boolean }[];
  branch_points: string[];
  usage: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number };
}
interface ErrorJson {
  error: { code: string; message: string; field?: string; line?: number };
}

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi('api-tree');
});
afterAll(async () => {
  await api?.close();
});

/** One turn: the prompt (continuing from `parentId` when given) and the model's `answer`. */
async function turn(id: string, text: string, answer: string, parentId?: string | null, owner = 'alice'): Promise<TurnJson> {
  api.fake.enqueue({ text: answer });
  const body = parentId === undefined ? { text } : { text, parent_id: parentId };
  return json<TurnJson>(await api.call(owner, 'POST', `/sessions/${id}/messages`, body), 200);
}

const said = (messages: readonly Message[]): string[] =>
  messages.map((message) =>
    message.role === 'user' || message.role === 'system'
      ? message.content
      : message.role === 'assistant'
        ? message.content.map((block) => (block.type === 'text' ? block.text : block.type)).join('')
        : message.role,
  );

const strip = ({ id: _id, timestamp: _timestamp, ...message }: MessageJson): Message => message as Message;

/** A session with a system prompt and two turns: q1 → a1 → q2 → a2. */
async function twoTurns(owner = 'alice'): Promise<{ id: string; first: TurnJson; second: TurnJson }> {
  const { id } = await api.newSession(owner, { system: 'Be brief.' });
  const first = await turn(id, 'q1', 'a1', undefined, owner);
  const second = await turn(id, 'q2', 'a2', undefined, owner);
  return { id, first, second };
}

describe('entry ids in messages', () => {
  it('gives every message of a session, a turn and a stream its entry id and timestamp', async () => {
    const { id, first } = await twoTurns();
    expect(first.messages.map((message) => [message.role, typeof message.id, typeof message.timestamp])).toEqual([
      ['user', 'string', 'string'],
      ['assistant', 'string', 'string'],
    ]);
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    expect(contents.messages.slice(1, 3)).toEqual(first.messages);
    const entries = await json<{ entries: EntryJson[] }>(await api.call('alice', 'GET', `/sessions/${id}/entries`), 200);
    expect(contents.messages.map((message) => message.id)).toEqual(entries.entries.map((entry) => entry.id));
  });

  it('says of each message whether a prompt may follow it, and of each turn what answering its prompt used', async () => {
    const { id } = await api.newSession('alice', { system: 'Be brief.' });
    api.fake.enqueue(
      { toolCalls: [{ id: 'toolu_used', name: 'current_time', input: {} }], usage: { input: 30, output: 4 } },
      { text: 'It is now.', usage: { input: 50, output: 6 } },
      { text: 'Bye.', usage: { input: 70, output: 2 } },
    );
    const used = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'what time is it?' }), 200);
    await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'bye' }), 200);
    // A turn's own answer says it too: the same field wherever a message has its entry id.
    expect(used.messages.map((message) => (message as { accepts_prompt?: boolean }).accepts_prompt)).toEqual([false, false, false, true]);
    const contents = await json<ContentsJson & { turns: { prompt_id: string; usage: object }[] }>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    const read = contents.messages as (MessageJson & { accepts_prompt?: boolean })[];
    expect(read.map((message) => [message.role, message.accepts_prompt])).toEqual([
      ['system', true],
      ['user', false],
      ['assistant', false],
      ['tool_result', false],
      ['assistant', true],
      ['user', false],
      ['assistant', true],
    ]);
    const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, cache_read_tokens: 0, cache_write_tokens: 0 });
    const prompts = read.filter((message) => message.role === 'user').map((message) => message.id);
    expect(contents.turns).toEqual([
      { prompt_id: prompts[0], usage: usage(80, 10) },
      { prompt_id: prompts[1], usage: usage(70, 2) },
    ]);
  });
});

describe('POST /sessions/{id}/messages with parent_id', () => {
  it('continues from an earlier answer: a new branch, which the session then reads', async () => {
    const { id, first, second } = await twoTurns();
    const a1 = first.messages[1]!.id!;
    const branched = await turn(id, 'q2b', 'a2b', a1);
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    expect(said(contents.messages.map(strip))).toEqual(['Be brief.', 'q1', 'a1', 'q2b', 'a2b']);
    const tree = await json<TreeJson>(await api.call('alice', 'GET', `/sessions/${id}/tree`), 200);
    expect(tree).toEqual({
      active_leaf: branched.messages[1]!.id,
      leaves: [
        { id: second.messages[1]!.id, timestamp: second.messages[1]!.timestamp, preview: 'a2', unanswered: false },
        { id: branched.messages[1]!.id, timestamp: branched.messages[1]!.timestamp, preview: 'a2b', unanswered: false },
      ],
      branch_points: [a1],
      usage: expect.objectContaining({ input_tokens: expect.any(Number) }),
    });
    // The model saw the branch's conversation, not the abandoned one.
    const request = api.fake.requests.at(-1)!.body as { messages: { role: string }[] };
    expect(request.messages).toHaveLength(3);
  });

  it('starts from the root with parent_id null, and from the system prompt with its id', async () => {
    const { id } = await twoTurns();
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    await turn(id, 'fresh', 'fresh answer', contents.messages[0]!.id);
    expect(said((await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200)).messages.map(strip))).toEqual([
      'Be brief.',
      'fresh',
      'fresh answer',
    ]);
    await turn(id, 'no system', 'bare', null);
    expect(said((await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200)).messages.map(strip))).toEqual(['no system', 'bare']);
  });

  it('refuses a parent_id that is not an entry of this session, or not after an answer, with 400 naming it, writing nothing', async () => {
    const { id, first } = await twoTurns();
    const other = await twoTurns();
    const before = await snapshot(api.aws);
    const requests = api.fake.requests.length;
    for (const [parentId, message] of [
      ['no-such-entry', 'parent_id: not an entry of this session'],
      [other.first.messages[1]!.id!, 'parent_id: not an entry of this session'],
      [first.messages[0]!.id!, expect.stringMatching(/^parent_id: a prompt cannot follow this entry/)],
      ['../etc', expect.stringMatching(/^parent_id: not an entry id/)],
    ] as const) {
      for (const path of ['messages', 'messages/stream']) {
        const error = await json<ErrorJson>(await api.call('alice', 'POST', `/sessions/${id}/${path}`, { text: 'x', parent_id: parentId }), 400);
        expect(error.error, `${path} ${parentId}`).toEqual({ code: 'invalid_body', message, field: 'parent_id' });
      }
    }
    expect(await snapshot(api.aws)).toEqual(before);
    expect(api.fake.requests.length).toBe(requests);
    // …and the lease was given back each time: a turn runs at once.
    await turn(id, 'still free', 'yes');
  });

  it('streams a turn that continues from parent_id', async () => {
    const { id, first } = await twoTurns();
    api.fake.enqueue({ text: 'streamed branch' });
    const response = await api.call('alice', 'POST', `/sessions/${id}/messages/stream`, { text: 'q2s', parent_id: first.messages[1]!.id });
    const events = parseSSE(await response.text());
    const messages = events.filter((event) => event.event === 'message').map((event) => (event.data as { message: MessageJson }).message);
    expect(said(messages.map(strip))).toEqual(['q2s', 'streamed branch']);
    const entries = await json<{ entries: EntryJson[] }>(await api.call('alice', 'GET', `/sessions/${id}/entries`), 200);
    expect(entries.entries.find((entry) => entry.id === messages[0]!.id)?.parent_id).toBe(first.messages[1]!.id);
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    expect(contents.messages.slice(-2)).toEqual(messages);
  });
});

describe('GET /sessions/{id}/entries', () => {
  it('pages through the whole log in order — every branch, switches, and what a compaction replaced', async () => {
    const { id, first } = await twoTurns();
    api.fake.enqueue({ text: 'Summary: q1 and q2.' });
    await json(await api.call('alice', 'POST', `/sessions/${id}/compact`, {}), 200);
    await turn(id, 'q3', 'a3', first.messages[1]!.id);
    await json(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: first.messages[1]!.id }), 200);

    const all = await json<{ entries: EntryJson[]; next_cursor: string | null }>(await api.call('alice', 'GET', `/sessions/${id}/entries`), 200);
    expect(all.next_cursor).toBeNull();
    expect(all.entries.map((entry) => entry.message?.role ?? entry.type)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'compaction',
      'user',
      'assistant',
      'leaf',
    ]);
    expect(all.entries[0]).toEqual({
      type: 'message',
      id: all.entries[0]!.id,
      parent_id: null,
      timestamp: expect.any(String),
      message: { role: 'system', content: 'Be brief.', mode: 'replace' },
    });
    expect(all.entries.at(-1)).toEqual({ type: 'leaf', id: expect.any(String), parent_id: first.messages[1]!.id, timestamp: expect.any(String) });
    expect(all.entries.some((entry) => 'batch_size' in entry)).toBe(false);

    const pages: EntryJson[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '?limit=4' : `?limit=4&cursor=${cursor}`;
      const page: { entries: EntryJson[]; next_cursor: string | null } = await json(await api.call('alice', 'GET', `/sessions/${id}/entries${query}`), 200);
      pages.push(page.entries);
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(pages.map((page) => page.length)).toEqual([4, 4, 1]);
    expect(pages.flat()).toEqual(all.entries);
  });

  it('refuses a cursor this API did not give and a limit out of range with 400 naming them', async () => {
    const { id } = await twoTurns();
    const other = await twoTurns();
    for (const [query, field] of [
      [`?cursor=${other.first.messages[0]!.id}`, 'cursor'],
      ['?cursor=../x', 'cursor'],
      ['?limit=0', 'limit'],
      ['?limit=501', 'limit'],
      ['?limit=1&limit=2', 'limit'],
      ['?page=2', 'page'],
    ] as const) {
      const error = await json<ErrorJson>(await api.call('alice', 'GET', `/sessions/${id}/entries${query}`), 400);
      expect(error.error, query).toMatchObject({ code: 'invalid_query', field });
    }
  });
});

describe('PUT /sessions/{id}/leaf', () => {
  it('switches the active branch without calling the model; turns then continue there', async () => {
    const { id, first, second } = await twoTurns();
    await turn(id, 'q2b', 'a2b', first.messages[1]!.id);
    const requests = api.fake.requests.length;
    const switched = await json<ContentsJson>(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: second.messages[1]!.id }), 200);
    expect(said(switched.messages.map(strip))).toEqual(['Be brief.', 'q1', 'a1', 'q2', 'a2']);
    // The switch's own hold on the session is over when it answers: no turn runs.
    expect((switched as ContentsJson & { turn: unknown }).turn).toBeNull();
    expect(api.fake.requests.length).toBe(requests);
    expect((await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200)).messages).toEqual(switched.messages);
    expect((await json<TreeJson>(await api.call('alice', 'GET', `/sessions/${id}/tree`), 200)).active_leaf).toBe(second.messages[1]!.id);
    const next = await turn(id, 'q3', 'a3');
    const entries = await json<{ entries: EntryJson[] }>(await api.call('alice', 'GET', `/sessions/${id}/entries`), 200);
    expect(entries.entries.find((entry) => entry.id === next.messages[0]!.id)?.parent_id).toBe(second.messages[1]!.id);
  });

  it('marks a prompt that never got its answer as an unanswered leaf, and counts the usage of every branch', async () => {
    const { id } = await api.newSession('alice', {});
    api.fake.enqueue({ text: 'a1', usage: { input: 100, output: 10 } });
    const first = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'q1' }), 200);
    api.fake.enqueue({ status: 400 });
    await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'failed' });
    // The next message goes on after the failure: the failed prompt's sibling (docs/session-format.md).
    api.fake.enqueue({ text: 'a2', usage: { input: 120, output: 8 } });
    const next = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'q2' }), 200);
    api.fake.enqueue({ text: 'a2 again', usage: { input: 120, output: 9 } });
    await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'q2, edited', parent_id: first.messages[1]!.id }), 200);
    const tree = await json<TreeJson>(await api.call('alice', 'GET', `/sessions/${id}/tree`), 200);
    expect(tree.leaves.map((leaf) => [leaf.preview, leaf.unanswered])).toEqual([
      ['failed', true],
      ['a2', false],
      ['a2 again', false],
    ]);
    expect(tree.branch_points).toEqual([first.messages[1]!.id]);
    // Every answer of every branch, where the session's own usage is its active branch's.
    expect(tree.usage).toEqual({ input_tokens: 340, output_tokens: 27, cache_read_tokens: 0, cache_write_tokens: 0 });
    const contents = await json<ContentsJson & { usage: { input_tokens: number } }>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    expect(contents.usage.input_tokens).toBe(220);
    expect(next.messages[0]!.id).not.toBe(tree.leaves[0]!.id);
  });

  it('names the session after the message that goes on after a failed first prompt, unless it was renamed', async () => {
    const title = async (id: string): Promise<string | null> => (await json<SessionJson>(await api.call('alice', 'PATCH', `/sessions/${id}`, {}), 200)).title;
    const { id } = await api.newSession('alice', { system: 'Be brief.' });
    api.fake.enqueue({ status: 400 });
    await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'The failed one' });
    expect(await title(id)).toBe('The failed one');
    await turn(id, 'The one that was answered', 'Yes.');
    expect(await title(id)).toBe('The one that was answered');

    const renamed = (await api.newSession('alice', {})).id;
    api.fake.enqueue({ status: 400 });
    await api.call('alice', 'POST', `/sessions/${renamed}/messages`, { text: 'Failed again' });
    await json<SessionJson>(await api.call('alice', 'PATCH', `/sessions/${renamed}`, { title: 'My name for it' }), 200);
    await turn(renamed, 'Answered', 'Yes.');
    expect(await title(renamed)).toBe('My name for it');
  });

  it('brings a dangling prompt on another branch back as dangling_user', async () => {
    const { id, first } = await twoTurns();
    api.fake.enqueue({ status: 500, errorBody: { type: 'error', error: { type: 'api_error', message: 'down' } } });
    await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'lost' });
    const lost = (await json<{ entries: EntryJson[] }>(await api.call('alice', 'GET', `/sessions/${id}/entries`), 200)).entries.at(-1)!;
    expect(lost.message).toMatchObject({ role: 'user', content: 'lost' });
    await turn(id, 'other', 'branch', first.messages[1]!.id);
    expect((await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200)).dangling_user).toBeNull();
    const back = await json<ContentsJson>(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: lost.id }), 200);
    expect(back.dangling_user).toBe('lost');
    expect(said(back.messages.map(strip))).toEqual(['Be brief.', 'q1', 'a1', 'q2', 'a2']);
  });

  it('refuses an entry in the middle of a turn (a tool call whose result is stored, that result before the answer), writing nothing', async () => {
    const { id } = await api.newSession('alice', { system: 'Be brief.' });
    api.fake.enqueue({ toolCalls: [{ id: 'toolu_mid', name: 'current_time', input: {} }] }, { text: 'It is now.' });
    const used = await json<TurnJson>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'what time is it?' }), 200);
    expect(used.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool_result', 'assistant']);
    const [, call, result, answer] = used.messages;
    const before = await snapshot(api.aws);
    for (const entry of [call!, result!]) {
      // Continuing there would tell the model that a tool which returned was interrupted.
      const error = await json<ErrorJson>(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: entry.id }), 400);
      expect(error.error, entry.role).toMatchObject({ code: 'invalid_body', field: 'entry_id' });
    }
    expect(await snapshot(api.aws)).toEqual(before);
    // Left there by the library (or a CLI), it is the active entry: switching to it again is the usual no-op.
    const store = await DynamoStore.open({
      client: api.aws.dynamo,
      tableName: api.aws.tableName,
      owner: 'alice',
      sessionId: id,
      s3: { client: api.aws.s3, bucket: api.aws.bucket },
    });
    await store.switchLeaf(call!.id!);
    const same = await snapshot(api.aws);
    await json(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: call!.id }), 200);
    expect(await snapshot(api.aws)).toEqual(same);
    // A turn's end, and its prompt (which comes back dangling), are still points to switch to.
    await turn(id, 'again', 'sure', answer!.id);
    expect((await json<ContentsJson>(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: answer!.id }), 200)).messages.at(-1)?.id).toBe(
      answer!.id,
    );
    expect((await json<ContentsJson>(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: used.messages[0]!.id }), 200)).dangling_user).toBe(
      'what time is it?',
    );
  });

  it('answers 409 while a turn holds the session, 400 for an entry it does not hold, writing nothing', async () => {
    const { id, first } = await twoTurns();
    const lease = await acquireSessionLease({ client: api.aws.dynamo, tableName: api.aws.tableName, owner: 'alice', sessionId: id, leaseMs: 60_000 });
    const before = await snapshot(api.aws);
    try {
      const busy = await json<ErrorJson>(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, { entry_id: first.messages[1]!.id }), 409);
      expect(busy.error.code).toBe('session_busy');
      const model = await json<ErrorJson>(await api.call('alice', 'PATCH', `/sessions/${id}`, { model: 'claude-other' }), 409);
      expect(model.error.code).toBe('session_busy');
      expect(await snapshot(api.aws)).toEqual(before);
    } finally {
      await lease.release();
    }
    const released = await snapshot(api.aws);
    for (const [body, field, message] of [
      [{ entry_id: 'nope' }, 'entry_id', 'entry_id: not an entry of this session'],
      [{}, 'entry_id', 'entry_id: required'],
      [{ entry_id: first.messages[1]!.id, extra: 1 }, 'extra', 'extra: unknown field'],
    ] as const) {
      const error = await json<ErrorJson>(await api.call('alice', 'PUT', `/sessions/${id}/leaf`, body), 400);
      expect(error.error).toEqual({ code: 'invalid_body', field, message });
    }
    expect(await snapshot(api.aws)).toEqual(released);
  });
});

describe('POST /sessions/{id}/fork', () => {
  it('answers 201 with a new session holding the path to the entry; the original is unchanged', async () => {
    const { id, first } = await twoTurns();
    const before = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    const fork = await json<SessionJson>(await api.call('alice', 'POST', `/sessions/${id}/fork`, { entry_id: first.messages[1]!.id }), 201);
    expect(fork.id).not.toBe(id);
    // Titled after the session it came from, so that the two can be told apart in a list.
    expect(fork).toMatchObject({ entry_count: 3, title: 'q1 (fork)' });
    const forked = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${fork.id}`), 200);
    expect(forked.messages).toEqual(before.messages.slice(0, 3));
    await turn(fork.id, 'only in the fork', 'ok');
    expect(await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200)).toEqual(before);
    const listed = await json<{ sessions: SessionJson[] }>(await api.call('alice', 'GET', '/sessions?limit=100'), 200);
    expect(listed.sessions.map((session) => session.id)).toContain(fork.id);
    await json<SessionJson>(await api.call('alice', 'PATCH', `/sessions/${id}`, { title: 'Renamed' }), 200);
    const renamed = await json<SessionJson>(await api.call('alice', 'POST', `/sessions/${id}/fork`, { entry_id: first.messages[1]!.id }), 201);
    expect(renamed.title).toBe('Renamed (fork)');
    const again = await json<SessionJson>(await api.call('alice', 'POST', `/sessions/${renamed.id}/fork`, { entry_id: first.messages[1]!.id }), 201);
    expect(again.title).toBe('Renamed (fork 2)');
    const error = await json<ErrorJson>(await api.call('alice', 'POST', `/sessions/${id}/fork`, { entry_id: 'nope' }), 400);
    expect(error.error).toMatchObject({ code: 'invalid_body', field: 'entry_id' });
  });

  it('keeps the model the session was created with when the path to the entry names none', async () => {
    const created = await json<SessionJson>(await api.call('alice', 'POST', '/sessions', { provider: 'openai', model: 'gpt-test', system: 'Be brief.' }), 201);
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${created.id}`), 200);
    const system = contents.messages[0]!;
    expect(system.role).toBe('system');
    const fork = await json<SessionJson>(await api.call('alice', 'POST', `/sessions/${created.id}/fork`, { entry_id: system.id }), 201);
    expect(fork.active_model).toEqual({ provider: 'openai', model: 'gpt-test' });
    const before = api.fake.requests.length;
    await turn(fork.id, 'in the fork', 'from openai');
    expect(api.fake.requests[before]).toMatchObject({ path: '/v1/chat/completions', body: { model: 'gpt-test' } });
  });
});

describe('POST /sessions/import', () => {
  async function exportText(id: string, owner = 'alice'): Promise<string> {
    const exported = await json<{ key: string }>(await api.call(owner, 'POST', `/sessions/${id}/export`), 200);
    const object = await api.aws.s3.send(new GetObjectCommand({ Bucket: api.aws.bucket, Key: exported.key }));
    return Buffer.from(await object.Body!.transformToByteArray()).toString('utf8');
  }

  async function importText(owner: string, body: string | Uint8Array): Promise<Response> {
    return fetch(`${api.url}/sessions/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await api.token(owner)}`, 'content-type': 'application/x-ndjson' },
      body,
    });
  }

  it('round trip: fork, export, import — the caller owns a session with the same tree', async () => {
    const { id, first } = await twoTurns();
    await turn(id, 'q2b', 'a2b', first.messages[1]!.id);
    const fork = await json<SessionJson>(await api.call('alice', 'POST', `/sessions/${id}/fork`, { entry_id: first.messages[1]!.id }), 201);
    await turn(fork.id, 'x', 'y');
    await turn(fork.id, 'x2', 'y2', first.messages[1]!.id);
    const text = await exportText(fork.id);

    // Another owner imports it: the id is taken (by alice), so the session gets a new one.
    const imported = await json<SessionJson>(await importText('bob', text), 201);
    expect(imported.id).not.toBe(fork.id);
    expect(imported).toMatchObject({ entry_count: fork.entry_count + 4, title: 'q1' });
    const [treeA, treeB] = await Promise.all([
      json<TreeJson>(await api.call('alice', 'GET', `/sessions/${fork.id}/tree`), 200),
      json<TreeJson>(await api.call('bob', 'GET', `/sessions/${imported.id}/tree`), 200),
    ]);
    expect(treeB).toEqual(treeA);
    const [entriesA, entriesB] = await Promise.all([
      json<{ entries: EntryJson[] }>(await api.call('alice', 'GET', `/sessions/${fork.id}/entries`), 200),
      json<{ entries: EntryJson[] }>(await api.call('bob', 'GET', `/sessions/${imported.id}/entries`), 200),
    ]);
    expect(entriesB.entries).toEqual(entriesA.entries);
    expect(await exportText(imported.id, 'bob')).toBe(text.replace(fork.id, imported.id));
    await json(await api.call('alice', 'GET', `/sessions/${imported.id}`), 404);
  });

  it("gives every import a new id and reports the header's as imported_from, whether another owner has it, it was deleted, or it is free", async () => {
    const { id } = await twoTurns();
    const text = await exportText(id);
    const taken = await json<SessionJson & { imported_from: string }>(await importText('carol', text), 201);
    // A finished delete removes its tombstone last: the id is free again.
    expect((await api.call('alice', 'DELETE', `/sessions/${id}`)).status).toBe(204);
    const free = await json<SessionJson & { imported_from: string }>(await importText('carol', text), 201);
    for (const imported of [taken, free]) {
      expect(imported.imported_from).toBe(id);
      expect(imported.id).not.toBe(id);
      expect(await exportText(imported.id, 'carol')).toBe(text.replace(id, imported.id));
    }
    await json(await api.call('carol', 'GET', `/sessions/${id}`), 404);
  });

  it('gives concurrent imports of one log one new id each', async () => {
    const { id } = await twoTurns();
    const text = await exportText(id);
    const imports = await Promise.all(
      Array.from({ length: 5 }, () => importText('carol', text).then((response) => json<SessionJson & { imported_from: string }>(response, 201))),
    );
    expect(new Set(imports.map((imported) => imported.id)).size).toBe(5);
    expect(imports.every((imported) => imported.imported_from === id && imported.id !== id)).toBe(true);
  });

  it('refuses a corrupt line with 400 naming it, and creates nothing', async () => {
    const { id } = await twoTurns();
    const lines = (await exportText(id)).split('\n');
    const before = await snapshot(api.aws);
    for (const [body, line, message] of [
      [[...lines.slice(0, 3), '{"type":"message", oops', ...lines.slice(3)].join('\n'), 4, 'line 4: not valid JSON'],
      [[lines[0], lines[1], lines[1], ''].join('\n'), 3, expect.stringMatching(/^line 3: duplicate entry id/)],
      ['not a session\n', 1, 'line 1: not valid JSON'],
      ['', 1, 'line 1: empty file: no session header'],
      // A request body is whole: a last line without its newline is a line like any other, not a torn one to drop.
      [[...lines.slice(0, 3), '{"type":"message", oops'].join('\n'), 4, 'line 4: not valid JSON'],
    ] as const) {
      const error = await json<ErrorJson>(await importText('alice', body), 400);
      expect(error.error).toEqual({ code: 'invalid_session', message, line });
    }
    // …and a whole entry without the newline is kept.
    const unterminated = await json<SessionJson>(await importText('alice', lines.slice(0, 3).join('\n')), 201);
    expect(unterminated.entry_count).toBe(2);
    expect((await api.call('alice', 'DELETE', `/sessions/${unterminated.id}`)).status).toBe(204);
    const latin1 = Buffer.concat([Buffer.from(`${lines[0]}\n`), Buffer.from([0x7b, 0xe9, 0x7d, 0x0a])]);
    expect((await json<ErrorJson>(await importText('alice', latin1), 400)).error).toEqual({
      code: 'invalid_session',
      message: 'line 2: not valid UTF-8',
      line: 2,
    });
    expect(await snapshot(api.aws)).toEqual(before);
  });

  it("imports a session whose provider this server does not have; its turns are a 422 on the session's provider, not a bad body", async () => {
    const line = (entry: object): string => `${JSON.stringify(entry)}\n`;
    const at = '2026-04-01T10:00:00.000Z';
    const body =
      line({ type: 'session', version: 2, id: 'elsewhere-1', timestamp: at }) +
      line({ type: 'message', id: 'e1', parent_id: null, timestamp: at, message: { role: 'user', content: 'hi', provider: 'inhouse', model: 'm1' } }) +
      line({
        type: 'message',
        id: 'e2',
        parent_id: 'e1',
        timestamp: at,
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: 'yo' }],
          provider: 'inhouse',
          model: 'm1',
          usage: { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 },
          stop_reason: 'end_turn',
        },
      });
    const imported = await json<SessionJson>(await importText('alice', body), 201);
    expect(imported.active_model).toEqual({ provider: 'inhouse', model: 'm1' });
    const before = await snapshot(api.aws);
    // A streamed turn too: its provider is chosen before the stream starts, so the status is real.
    for (const path of ['messages', 'compact', 'messages/stream']) {
      const error = await json<ErrorJson>(
        await api.call('alice', 'POST', `/sessions/${imported.id}/${path}`, path === 'compact' ? {} : { text: 'hello' }),
        422,
      );
      expect(error.error, path).toMatchObject({ code: 'provider_not_configured', field: 'provider' });
    }
    expect(await snapshot(api.aws)).toEqual(before);
    // Choosing a provider this server has makes it usable.
    await json(await api.call('alice', 'PATCH', `/sessions/${imported.id}`, { provider: 'anthropic' }), 200);
    await turn(imported.id, 'hello', 'back');
  });

  it('refuses a body over the limit with 413', async () => {
    const small = await startApi('api-tree-small', { limits: { bodyLimitBytes: 1024 }, aws: api.aws });
    try {
      const response = await fetch(`${small.url}/sessions/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await small.token('alice')}`, 'content-type': 'application/x-ndjson' },
        body: 'x'.repeat(2048),
      });
      expect((await json<ErrorJson>(response, 413)).error.code).toBe('payload_too_large');
    } finally {
      await small.close();
    }
  });
});

describe('PATCH /sessions/{id}', () => {
  it('renames a session', async () => {
    const { id } = await twoTurns();
    const renamed = await json<SessionJson>(await api.call('alice', 'PATCH', `/sessions/${id}`, { title: '  The   parser  ' }), 200);
    expect(renamed.title).toBe('The parser');
    const listed = await json<{ sessions: SessionJson[] }>(await api.call('alice', 'GET', '/sessions?limit=100'), 200);
    expect(listed.sessions.find((session) => session.id === id)?.title).toBe('The parser');
  });

  it('changes the model its next turns use, checked as at creation', async () => {
    const { id } = await twoTurns();
    const changed = await json<SessionJson>(await api.call('alice', 'PATCH', `/sessions/${id}`, { provider: 'openai', model: 'gpt-test' }), 200);
    expect(changed.active_model).toEqual({ provider: 'openai', model: 'gpt-test' });
    const before = api.fake.requests.length;
    await turn(id, 'to openai', 'from openai');
    expect(api.fake.requests[before]).toMatchObject({ path: '/v1/chat/completions', body: { model: 'gpt-test' } });
    // A model alone keeps the session's provider.
    const modelOnly = await json<SessionJson>(await api.call('alice', 'PATCH', `/sessions/${id}`, { model: 'gpt-other' }), 200);
    expect(modelOnly.active_model).toEqual({ provider: 'openai', model: 'gpt-other' });
    expect((await json<ContentsJson & { active_model: unknown }>(await api.call('alice', 'GET', `/sessions/${id}`), 200)).active_model).toEqual({
      provider: 'openai',
      model: 'gpt-other',
    });

    const snapshotBefore = await snapshot(api.aws);
    for (const [body, field] of [
      [{ provider: 'nobody' }, 'provider'],
      [{ provider: 'Not Valid' }, 'provider'],
      // As at creation: a model the provider does not offer (offline has no base URL here) names `model`.
      [{ provider: 'offline', model: 'no-such-model' }, 'model'],
      [{ model: '' }, 'model'],
      [{ title: '' }, 'title'],
      [{ title: 'x'.repeat(121) }, 'title'],
      [{ owner: 'bob' }, 'owner'],
    ] as const) {
      const error = await json<ErrorJson>(await api.call('alice', 'PATCH', `/sessions/${id}`, body), 400);
      expect(error.error, JSON.stringify(body)).toMatchObject({ code: 'invalid_body', field });
    }
    expect(await snapshot(api.aws)).toEqual(snapshotBefore);

    // A model alone is judged against the session's own provider.
    const offline = await api.newSession('alice', { provider: 'offline' });
    const unknown = await json<ErrorJson>(await api.call('alice', 'PATCH', `/sessions/${offline.id}`, { model: 'no-such-model' }), 400);
    expect(unknown.error).toMatchObject({ code: 'invalid_body', field: 'model' });
    expect((await json<ContentsJson & { active_model: unknown }>(await api.call('alice', 'GET', `/sessions/${offline.id}`), 200)).active_model).toEqual({
      provider: 'offline',
      model: 'offline-1',
    });
  });
});

describe('owner isolation', () => {
  it("answers 404 for another owner's session on every tree route, and changes nothing", async () => {
    const { id, first } = await twoTurns('alice');
    const entry = first.messages[1]!.id!;
    const before = await snapshot(api.aws);
    for (const [method, path, body] of [
      ['GET', `/sessions/${id}/entries`, undefined],
      ['GET', `/sessions/${id}/tree`, undefined],
      ['PUT', `/sessions/${id}/leaf`, { entry_id: entry }],
      ['POST', `/sessions/${id}/fork`, { entry_id: entry }],
      ['PATCH', `/sessions/${id}`, { title: 'mine now' }],
      ['PATCH', `/sessions/${id}`, { model: 'claude-x' }],
      ['POST', `/sessions/${id}/messages`, { text: 'hi', parent_id: entry }],
      ['POST', `/sessions/${id}/messages/stream`, { text: 'hi', parent_id: entry }],
    ] as const) {
      const error = await json<ErrorJson>(await api.call('bob', method, path, body), 404);
      expect(error.error.code, `${method} ${path}`).toBe('session_not_found');
    }
    expect(await snapshot(api.aws)).toEqual(before);
  });
});
