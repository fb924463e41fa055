import { DynamoStore, exportSession, InvalidBatchError, OffloadRequiredError, SessionConflictError, SessionNotFoundError } from '@panto/aws';
import type { DiskMessage, Message } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { RecordFactory, usage } from '@panto/core/testing';
import { describeSessionStoreConformance } from '@panto/core/testing/conformance';
import { describe, expect, it } from 'vitest';
import { countCommands, localAws, once } from './setup/aws-fixtures.js';
import { objectKeys } from './setup/aws-inspect.js';

const aws = once(() => localAws('store'));
const OWNER = 'owner-a';

async function create(options: { s3?: boolean } = {}): Promise<DynamoStore> {
  const { dynamo, tableName, s3, bucket } = await aws();
  return DynamoStore.create({ client: dynamo, tableName, owner: OWNER, ...(options.s3 === false ? {} : { s3: { client: s3, bucket } }) });
}

async function reopen(store: DynamoStore, owner = OWNER): Promise<DynamoStore> {
  const { dynamo, tableName, s3, bucket } = await aws();
  return DynamoStore.open({ client: dynamo, tableName, owner, sessionId: store.sessionId(), s3: { client: s3, bucket } });
}

function toolResult(f: RecordFactory, callId: string, content: string): DiskMessage {
  return f.message({ role: 'tool_result', tool_call_id: callId, tool_name: 'read', content, is_error: false });
}

function toolCall(f: RecordFactory, callId: string): DiskMessage {
  return f.message({
    role: 'assistant',
    content: [{ type: 'tool_call', id: callId, name: 'read', input: { path: 'big.txt' } }],
    provider: 'scripted',
    model: 'scripted-1',
    usage: usage(1, 1),
    stop_reason: 'tool_use',
  });
}

/** A string of `bytes` UTF-8 bytes, not compressible into a pattern a bug could fake. */
function text(bytes: number, seed: number): string {
  let out = '';
  let x = seed;
  while (out.length < bytes) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += x.toString(36);
  }
  return out.slice(0, bytes);
}

describeSessionStoreConformance('DynamoStore', {
  create: () => create(),
  reopen: (store) => reopen(store as DynamoStore),
});

describe('DynamoStore on DynamoDB Local', () => {
  it('lets exactly one of ten handles on the same head land its batch; the rest get SessionConflictError', async () => {
    const store = await create();
    const f = new RecordFactory('race');
    await store.appendMessages([f.user('base'), f.assistant('reply')]);
    const handles = await Promise.all(Array.from({ length: 10 }, () => reopen(store)));
    const batches = handles.map((_, w) => [f.assistant(`w${w} a`), f.user(`w${w} b`), f.assistant(`w${w} c`)]);
    const results = await Promise.allSettled(handles.map((handle, w) => handle.appendMessages(batches[w]!)));
    const winner = results.findIndex((result) => result.status === 'fulfilled');
    const rejected = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    expect(winner).toBeGreaterThanOrEqual(0);
    expect(rejected).toHaveLength(9);
    for (const error of rejected) {
      expect(error).toBeInstanceOf(SessionConflictError);
      expect((error as SessionConflictError).current).toEqual({ entryCount: 5, entryId: batches[winner]![2]!.id });
    }
    expect((await (await reopen(store)).loadConversation()).conversation.length).toBe(5);
  });

  it('keeps the log whole under ten concurrent writers that reload and retry on conflict', async () => {
    const store = await create();
    const seed = new RecordFactory('seed');
    await store.appendMessages([seed.user('start'), seed.assistant('ready')]);
    const writers = 10;
    const batchesPerWriter = 3;
    const failures: unknown[] = [];
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        const handle = await reopen(store);
        const f = new RecordFactory(`w${w}`);
        for (let b = 0; b < batchesPerWriter; b++) {
          const batch = [f.assistant(`w${w}/b${b}/0`), f.user(`w${w}/b${b}/1`), f.assistant(`w${w}/b${b}/2`)];
          for (;;) {
            try {
              await handle.appendMessages(batch);
              break;
            } catch (error) {
              if (!(error instanceof SessionConflictError)) {
                failures.push(error);
                return;
              }
              await handle.loadConversation();
            }
          }
        }
      }),
    );
    expect(failures).toEqual([]);

    const { conversation } = await (await reopen(store)).loadConversation();
    const labels = conversation.messages.slice(2).map((message) => label(message));
    expect(labels).toHaveLength(writers * batchesPerWriter * 3);
    // Every batch appears exactly once, whole, its three messages in a row.
    const seen = new Set<string>();
    for (let i = 0; i < labels.length; i += 3) {
      const batch = labels[i]!.replace(/\/0$/, '');
      expect(labels.slice(i, i + 3)).toEqual([`${batch}/0`, `${batch}/1`, `${batch}/2`]);
      expect(seen.has(batch)).toBe(false);
      seen.add(batch);
    }
    expect(seen.size).toBe(writers * batchesPerWriter);

    // The exported log is one chain: each entry's parent is the entry before it.
    const { s3, bucket, dynamo, tableName } = await aws();
    const exported = await exportSession({ dynamo, tableName, s3, bucket, owner: OWNER, sessionId: store.sessionId() });
    const bytes = await (await fetch(exported.url)).arrayBuffer();
    const { entries } = decodeSession(new Uint8Array(bytes), 'export');
    expect(entries).toHaveLength(2 + writers * batchesPerWriter * 3);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
    for (const [i, entry] of entries.entries()) expect(entry.parent_id).toBe(i === 0 ? null : entries[i - 1]!.id);
  });

  it('appends a 150-message batch in one transaction and loads it whole and in order', async () => {
    const store = await create();
    const { dynamo } = await aws();
    const counts = countCommands(dynamo);
    const f = new RecordFactory('big');
    const batch: DiskMessage[] = [];
    for (let i = 0; i < 75; i++) batch.push(f.user(`q${i} ${'?'.repeat(200)}`), f.assistant(`a${i} ${'!'.repeat(1500)}`));
    await store.appendMessages(batch);
    expect(counts.get('TransactWriteItemsCommand')).toBe(1);
    const loaded = await (await reopen(store)).loadConversation();
    expect(loaded.conversation.length).toBe(150);
    expect(loaded.conversation.messages.map(label)).toEqual(batch.map((record) => label((record as { message: Message }).message)));
  });

  it('offloads a 600 KB tool result to S3 and restores it byte for byte', async () => {
    const store = await create();
    const { s3, bucket } = await aws();
    const f = new RecordFactory('offload');
    const body = `${text(600 * 1024, 7)} ünïcödé ✓\n`;
    await store.appendMessages([f.user('read big.txt')]);
    await store.appendMessages([toolCall(f, 'call-1'), toolResult(f, 'call-1', body)]);
    expect(await objectKeys({ s3, bucket }, `offload/${store.sessionId()}/`)).toHaveLength(1);
    const loaded = await (await reopen(store)).loadConversation();
    const result = loaded.conversation.messages[2];
    expect(result).toMatchObject({ role: 'tool_result', tool_call_id: 'call-1' });
    expect(result?.role === 'tool_result' && result.content === body).toBe(true);
  });

  it('refuses a message over the item limit without an S3 bucket, writing nothing', async () => {
    const store = await create({ s3: false });
    const f = new RecordFactory('nos3');
    await store.appendMessages([f.user('read big.txt')]);
    const error = await store.appendMessages([toolCall(f, 'c'), toolResult(f, 'c', text(500 * 1024, 3))]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OffloadRequiredError);
    const loaded = await (await reopen(store)).loadConversation();
    expect(loaded.danglingUser).toBe('read big.txt');
    expect(loaded.conversation.length).toBe(0);
    // Nothing was written, so this handle can go on.
    await store.appendMessages([f.assistant('small instead')]);
  });

  it('appends a 5 MB batch atomically in one transaction, offloading what does not fit inline', async () => {
    const store = await create();
    const { dynamo } = await aws();
    const counts = countCommands(dynamo);
    const f = new RecordFactory('five');
    const batch: DiskMessage[] = [f.user('go')];
    for (let i = 0; i < 50; i++) batch.push(toolCall(f, `c${i}`), toolResult(f, `c${i}`, text(100 * 1024, i + 11)));
    await store.appendMessages(batch);
    expect(counts.get('TransactWriteItemsCommand')).toBe(1);
    const loaded = await (await reopen(store)).loadConversation();
    expect(loaded.conversation.length).toBe(101);
    expect(loaded.conversation.messages).toEqual(batch.map((record) => (record as { message: Message }).message));
  });

  it('refuses a 5 MB batch without an S3 bucket, writing nothing', async () => {
    const store = await create({ s3: false });
    const f = new RecordFactory('five-nos3');
    const batch: DiskMessage[] = [f.user('go')];
    for (let i = 0; i < 50; i++) batch.push(toolCall(f, `c${i}`), toolResult(f, `c${i}`, text(100 * 1024, i)));
    await expect(store.appendMessages(batch)).rejects.toBeInstanceOf(OffloadRequiredError);
    expect((await (await reopen(store)).loadConversation()).danglingUser).toBeNull();
    expect(store.metadata().entryCount).toBe(0);
  });

  it('refuses an id a loaded handle has seen in the session with InvalidBatchError', async () => {
    const store = await create();
    const f = new RecordFactory('dup');
    const first = f.user('one');
    await store.appendMessages([first, f.assistant('two')]);
    const other = await reopen(store);
    await other.loadConversation();
    await expect(other.appendMessages([{ ...f.user('again'), id: first.id }])).rejects.toBeInstanceOf(InvalidBatchError);
  });

  it('keeps the session metadata: title from the first prompt, counts, head and active model', async () => {
    const store = await create();
    const f = new RecordFactory('meta');
    await store.appendMessages([f.message({ role: 'system', content: 'sys', mode: 'replace' })]);
    expect(store.metadata().title).toBeNull();
    await store.appendMessages([f.user('  Plan   the\nmigration  ', 'anthropic', 'claude-a')]);
    const last = f.assistant('ok', { provider: 'openai', model: 'gpt-b' });
    await store.appendMessages([last, f.user('second prompt')]);
    const reopened = await reopen(store);
    expect(reopened.metadata()).toMatchObject({
      id: store.sessionId(),
      owner: OWNER,
      entryCount: 4,
      title: 'Plan the migration',
      activeModel: { provider: 'scripted', model: 'scripted-1' },
    });
    expect(reopened.metadata().head).toBe(store.metadata().head);
    expect(Date.parse(reopened.metadata().updatedAt)).toBeGreaterThanOrEqual(Date.parse(reopened.metadata().createdAt));
  });

  it('reports the model a session was created with until an entry names one', async () => {
    const { dynamo, tableName } = await aws();
    const store = await DynamoStore.create({ client: dynamo, tableName, owner: OWNER, activeModel: { provider: 'openai', model: 'gpt-x' } });
    expect(store.activeModel()).toEqual({ provider: 'openai', model: 'gpt-x' });
    const f = new RecordFactory('model');
    await store.appendMessages([f.message({ role: 'system', content: 'sys', mode: 'replace' })]);
    const reopened = await reopen(store);
    await reopened.loadConversation();
    expect(reopened.activeModel()).toEqual({ provider: 'openai', model: 'gpt-x' });
    await reopened.appendMessages([f.user('hi', 'anthropic', 'claude-y')]);
    expect((await reopen(store)).activeModel()).toEqual({ provider: 'anthropic', model: 'claude-y' });
  });

  it("opens another owner's session, a missing one and a malformed id as the same SessionNotFoundError", async () => {
    const store = await create();
    await store.appendMessages([new RecordFactory('own').user('mine')]);
    const { dynamo, tableName } = await aws();
    const attempts = ['../etc/passwd', 'a/b', 'x#META', 'bad\u0000id', 'x'.repeat(200), '', 'no-such-session'].map((sessionId) =>
      DynamoStore.open({ client: dynamo, tableName, owner: OWNER, sessionId }).catch((e: unknown) => e),
    );
    attempts.push(reopen(store, 'owner-b').catch((e: unknown) => e));
    for (const error of await Promise.all(attempts)) {
      expect(error).toBeInstanceOf(SessionNotFoundError);
      expect((error as Error).message).not.toMatch(/owner/);
    }
  });
});

function label(message: Message): string {
  switch (message.role) {
    case 'user':
    case 'system':
    case 'tool_result':
      return message.content;
    case 'assistant':
      return message.content.map((block) => (block.type === 'text' ? block.text : block.type)).join('');
    case 'compaction':
      return message.summary;
  }
}
