/**
 * Archived sessions over HTTP: the real app on loopback, DynamoDB Local and s3rver. A session
 * the sweeper archived is listed with `"archived": true`; reading it, a turn, a compaction or
 * an export bring it back and answer as if it had never left; `GET /sessions/{id}/exports`
 * lists its exports and archives with fresh download URLs, without restoring it.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { Message } from '@panto/core';
import { archiveSweepHandler, runArchiveSweep } from '@panto/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, json, startApi } from './api-harness.js';

interface SessionJson {
  id: string;
  title: string | null;
  entry_count: number;
  archived: boolean;
}
interface ContentsJson {
  id: string;
  messages: Message[];
  dangling_user: string | null;
  usage: { input_tokens: number; output_tokens: number };
}
interface ExportsJson {
  exports: Array<{ kind: 'export' | 'archive'; key: string; created_at: string; bytes: number; entries: number | null; storage_class: string; url: string }>;
  expires_in: number;
}

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi('api-archive');
});
afterAll(async () => {
  await api?.close();
});

/** A session with a system prompt and `turns` answered prompts. */
async function sessionWithTurns(turns: number): Promise<string> {
  const { id } = await json<SessionJson>(await api.call('alice', 'POST', '/sessions', { system: 'Be brief.' }), 201);
  for (let n = 1; n <= turns; n++) {
    api.fake.enqueue({ text: `answer ${n}` });
    await json(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: `question ${n}` }), 200);
  }
  return id;
}

/** What the scheduled function does, with every session so far counting as cold. */
async function sweep(): Promise<number> {
  const { dynamo, s3, tableName, bucket } = api.aws;
  const summary = await runArchiveSweep({ dynamo, s3, tableName, bucket, archiveAfterMs: 1, clock: () => new Date(Date.now() + 1000) });
  expect(summary.failed).toBe(0);
  return summary.archived;
}

async function listed(id: string): Promise<SessionJson | undefined> {
  const { sessions } = await json<{ sessions: SessionJson[] }>(await api.call('alice', 'GET', '/sessions?limit=100'), 200);
  return sessions.find((session) => session.id === id);
}

describe('archived sessions over HTTP', () => {
  it('lists an archived session as archived, with its title and entry count; GET restores it to the same messages, and a turn goes on', async () => {
    const id = await sessionWithTurns(2);
    const before = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    expect(await sweep()).toBeGreaterThanOrEqual(1);
    expect(await listed(id)).toMatchObject({ archived: true, title: 'question 1', entry_count: 5 });

    const after = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    expect(after).toEqual(before);
    expect(await listed(id)).toMatchObject({ archived: false, entry_count: 5 });

    api.fake.enqueue({ text: 'answer 3' });
    const turn = await json<{ messages: Message[] }>(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'question 3' }), 200);
    expect(turn.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    const contents = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    expect(contents.messages).toEqual([...before.messages, ...turn.messages]);
  });

  it('restores an archived session for a turn, a compaction and an export, each as if it had never left', async () => {
    const turned = await sessionWithTurns(1);
    const compacted = await sessionWithTurns(1);
    const exported = await sessionWithTurns(1);
    await sweep();
    for (const id of [turned, compacted, exported]) expect(await listed(id)).toMatchObject({ archived: true });

    api.fake.enqueue({ text: 'still here' });
    const turn = await json<{ messages: Message[] }>(await api.call('alice', 'POST', `/sessions/${turned}/messages`, { text: 'are you there?' }), 200);
    expect(turn.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'still here' }] });

    api.fake.enqueue({ text: 'Summary: one question.' });
    await json(await api.call('alice', 'POST', `/sessions/${compacted}/compact`, {}), 200);

    const result = await json<{ entries: number; url: string }>(await api.call('alice', 'POST', `/sessions/${exported}/export`), 200);
    expect(result.entries).toBe(3);
    for (const id of [turned, compacted, exported]) expect(await listed(id)).toMatchObject({ archived: false });
  });

  it('answers two reads of an archived session at once with the same session', async () => {
    const id = await sessionWithTurns(2);
    const before = await json<ContentsJson>(await api.call('alice', 'GET', `/sessions/${id}`), 200);
    await sweep();
    const reads = await Promise.all([1, 2, 3].map(() => api.call('alice', 'GET', `/sessions/${id}`)));
    for (const read of reads) expect(await json<ContentsJson>(read, 200)).toEqual(before);
  });

  it('lists exports and archives with fresh URLs that download the same bytes, and keeps the session archived', async () => {
    const id = await sessionWithTurns(1);
    const exported = await json<{ key: string; bytes: number }>(await api.call('alice', 'POST', `/sessions/${id}/export`), 200);
    await sweep();
    const list = await json<ExportsJson>(await api.call('alice', 'GET', `/sessions/${id}/exports?expires_in=120`), 200);
    expect(list.expires_in).toBe(120);
    expect(list.exports.map((object) => [object.kind, object.entries, object.storage_class])).toEqual([
      ['archive', 3, 'STANDARD'],
      ['export', 3, 'STANDARD'],
    ]);
    expect(list.exports[1]).toMatchObject({ key: exported.key, bytes: exported.bytes });
    const [archive, exportBytes] = await Promise.all(list.exports.map(async (object) => Buffer.from(await (await fetch(object.url)).arrayBuffer())));
    expect(archive!.equals(exportBytes!)).toBe(true);
    expect(new URL(list.exports[0]!.url).searchParams.get('X-Amz-Expires')).toBe('120');
    expect(await listed(id)).toMatchObject({ archived: true });

    expect((await json<{ error: { code: string } }>(await api.call('mallory', 'GET', `/sessions/${id}/exports`), 404)).error.code).toBe('session_not_found');
    const bad = await json<{ error: { code: string; field: string } }>(await api.call('alice', 'GET', `/sessions/${id}/exports?expires_in=5`), 400);
    expect(bad.error).toMatchObject({ code: 'invalid_query', field: 'expires_in' });
  });

  it('deletes an archived session with its exports and archives', async () => {
    const id = await sessionWithTurns(1);
    await json(await api.call('alice', 'POST', `/sessions/${id}/export`), 200);
    await sweep();
    expect((await api.call('alice', 'DELETE', `/sessions/${id}`)).status).toBe(204);
    expect((await api.call('alice', 'GET', `/sessions/${id}/exports`)).status).toBe(404);
    for (const prefix of [`exports/${id}/`, `archive/${id}/`]) {
      const page = await api.aws.s3.send(new ListObjectsV2Command({ Bucket: api.aws.bucket, Prefix: prefix }));
      expect(page.Contents ?? []).toEqual([]);
    }
  });
});

describe('the scheduled sweeper', () => {
  it('starts no session once the function has less than its margin left, and archives them on the next run', async () => {
    const id = await sessionWithTurns(1);
    const { dynamo, s3, tableName, bucket } = api.aws;
    const handler = archiveSweepHandler({ dynamo, s3, tableName, bucket, archiveAfterMs: 1, clock: () => new Date(Date.now() + 1000) });
    expect(await handler({}, { getRemainingTimeInMillis: () => 60_000 })).toMatchObject({ archived: 0, complete: false });
    expect(await listed(id)).toMatchObject({ archived: false });
    expect(await handler({}, { getRemainingTimeInMillis: () => 900_000 })).toMatchObject({ failed: 0, complete: true });
    expect(await listed(id)).toMatchObject({ archived: true });
  });
});
