import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  deleteSession,
  DynamoStore,
  exportSession,
  importSession,
  listOwnerSessions,
  OffloadRequiredError,
  SessionCorruptError,
  SessionNotFoundError,
} from '@panto/aws';
import { FSJSONLStore, SESSION_FORMAT_VERSION, type DiskMessage } from '@panto/core';
import { encodeBatch, encodeHeader, SessionLog } from '@panto/core/store-kit';
import { everyKindOfMessage, RecordFactory, usage } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { countCommands, localAws, once, type LocalAws } from './setup/aws-fixtures.js';
import { objectBytes, objectKeys, partitionSks } from './setup/aws-inspect.js';

const aws = once(() => localAws('archive'));
const OWNER = 'owner-archive';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panto-archive-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Batches covering every message kind, a compaction, a dangling-free tail and a 600 KB (offloaded) tool result. */
function sampleBatches(): DiskMessage[][] {
  const f = new RecordFactory('arch');
  const kinds = everyKindOfMessage().map((message) => f.message(message));
  return [
    kinds.slice(0, 3),
    kinds.slice(3, 7),
    kinds.slice(7),
    [
      {
        type: 'compaction',
        id: f.nextId(),
        timestamp: '2026-01-01T00:10:00.000Z',
        summary: 'Earlier: read a.txt.',
        provider: 'scripted',
        model: 'scripted-1',
        usage: usage(5, 5),
        prior_usage: usage(1210, 87),
      },
    ],
    [f.user('big one')],
    [
      f.message({
        role: 'assistant',
        content: [{ type: 'tool_call', id: 'big', name: 'read', input: { path: 'big' } }],
        provider: 'scripted',
        model: 'scripted-1',
        usage: usage(1, 1),
        stop_reason: 'tool_use',
      }),
      f.message({ role: 'tool_result', tool_call_id: 'big', tool_name: 'read', content: `${'ä'.repeat(300 * 1024)}\n`, is_error: false }),
      f.assistant('done'),
    ],
  ];
}

async function sessionWith(env: LocalAws, batches: DiskMessage[][], clock?: () => Date): Promise<DynamoStore> {
  const store = await DynamoStore.create({
    client: env.dynamo,
    tableName: env.tableName,
    owner: OWNER,
    s3: { client: env.s3, bucket: env.bucket },
    cwd: '/work/project',
    ...(clock === undefined ? {} : { clock }),
  });
  for (const batch of batches) await store.appendMessages(batch);
  return store;
}

describe('exportSession / importSession on DynamoDB Local and s3rver', () => {
  it('exports exactly the bytes FSJSONLStore writes for the same batches, and FSJSONLStore opens them to the same conversation', async () => {
    const env = await aws();
    const batches = sampleBatches();
    const created = new Date('2026-03-01T12:00:00.000Z');
    const store = await sessionWith(env, batches, () => created);
    const exported = await exportSession({
      dynamo: env.dynamo,
      tableName: env.tableName,
      s3: env.s3,
      bucket: env.bucket,
      owner: OWNER,
      sessionId: store.sessionId(),
      now: () => new Date('2026-03-02T08:30:00.000Z'),
    });
    expect(exported.key).toBe(`exports/${store.sessionId()}/20260302T083000.000Z-${batches.flat().length}-entries.jsonl`);
    expect(exported.entries).toBe(batches.flat().length);

    // The filesystem store, given the same batches, writes the same file.
    const fs = await FSJSONLStore.create(dir, { sessionId: store.sessionId(), cwd: '/work/project', clock: () => created });
    for (const batch of batches) await fs.appendMessages(batch);
    const fsBytes = await readFile(fs.getSessionFile());
    const bytes = await objectBytes(env, exported.key);
    expect(bytes.equals(fsBytes)).toBe(true);
    expect(exported.bytes).toBe(bytes.length);

    // Also spelled out: the header line, then each batch's lines.
    const log = SessionLog.empty();
    let expected = encodeHeader({
      type: 'session',
      version: SESSION_FORMAT_VERSION,
      id: store.sessionId(),
      timestamp: created.toISOString(),
      cwd: '/work/project',
    });
    for (const batch of batches) {
      const entries = log.chain(batch);
      expected += encodeBatch(entries);
      log.commit(entries);
    }
    expect(bytes.toString('utf8')).toBe(expected);

    const file = join(dir, 'downloaded.jsonl');
    await writeFile(file, bytes);
    const fromFile = await (await FSJSONLStore.open(file)).loadConversation();
    const fromDynamo = await store.loadConversation();
    expect(fromFile.conversation.messages).toEqual(fromDynamo.conversation.messages);
    expect(fromFile.danglingUser).toBe(fromDynamo.danglingUser);

    const head_ = await env.s3.send(new HeadObjectCommand({ Bucket: env.bucket, Key: exported.key }));
    expect(head_.ContentType).toBe('application/x-ndjson');
    // Signed at `now`, for 15 minutes (s3rver refuses it once expired, so it is fetched in the next test).
    const url = new URL(exported.url);
    expect(url.pathname).toBe(`/${env.bucket}/${exported.key}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20260302T083000Z');
  });

  it('exports a session larger than one multipart part whole', async () => {
    const env = await aws();
    const f = new RecordFactory('multi');
    const batches: DiskMessage[][] = [];
    for (let i = 0; i < 40; i++) {
      batches.push([f.user(`q${i}`), f.assistant(`${String(i).repeat(1)}${'x'.repeat(200 * 1024)}`)]);
    }
    const store = await sessionWith(env, batches);
    const exported = await exportSession({
      dynamo: env.dynamo,
      tableName: env.tableName,
      s3: env.s3,
      bucket: env.bucket,
      owner: OWNER,
      sessionId: store.sessionId(),
    });
    expect(exported.bytes).toBeGreaterThan(5 * 1024 * 1024);
    const bytes = await objectBytes(env, exported.key);
    expect(bytes.length).toBe(exported.bytes);
    // The presigned URL serves the same bytes.
    expect(Buffer.from(await (await fetch(exported.url)).arrayBuffer()).equals(bytes)).toBe(true);
    const file = join(dir, 'multi.jsonl');
    await writeFile(file, bytes);
    expect((await (await FSJSONLStore.open(file)).loadConversation()).conversation.messages).toEqual((await store.loadConversation()).conversation.messages);
  });

  it('answers SessionNotFoundError, not a corrupt session, when a delete removes the items while the export reads them', async () => {
    const env = await aws();
    const store = await sessionWith(env, [[new RecordFactory('gone').user('q'), new RecordFactory('gone2').assistant('a')]]);
    const location = { client: env.s3, bucket: env.bucket };
    // The export's client: META is read, then — before the items are — the session is deleted.
    const racing = localDynamoDBClient(inject('dynamoEndpoint'));
    let deleted = false;
    racing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand' && !deleted) {
          deleted = true;
          await deleteSession({ client: env.dynamo, tableName: env.tableName, owner: OWNER, sessionId: store.sessionId(), s3: location, exports: location });
        }
        return next(args);
      },
      { step: 'initialize', name: 'deleteBeforeQuery' },
    );
    const error = await exportSession({
      dynamo: racing,
      tableName: env.tableName,
      s3: env.s3,
      bucket: env.bucket,
      owner: OWNER,
      sessionId: store.sessionId(),
    }).catch((e: unknown) => e);
    expect(deleted).toBe(true);
    expect(error).toBeInstanceOf(SessionNotFoundError);
    expect(await objectKeys(env, `exports/${store.sessionId()}/`)).toEqual([]);
  });

  it("refuses to export another owner's session with SessionNotFoundError", async () => {
    const env = await aws();
    const store = await sessionWith(env, [[new RecordFactory('x').user('hi')]]);
    await expect(
      exportSession({ dynamo: env.dynamo, tableName: env.tableName, s3: env.s3, bucket: env.bucket, owner: 'someone-else', sessionId: store.sessionId() }),
    ).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('imports an FSJSONLStore file into a new session with the same entries and conversation', async () => {
    const env = await aws();
    const batches = sampleBatches();
    const fs = await FSJSONLStore.create(dir, { cwd: '/elsewhere' });
    for (const batch of batches) await fs.appendMessages(batch);
    const imported = await importSession({
      dynamo: env.dynamo,
      tableName: env.tableName,
      owner: OWNER,
      s3: { client: env.s3, bucket: env.bucket },
      source: { file: fs.getSessionFile() },
    });
    expect(imported.sessionId()).not.toBe(fs.sessionId());
    const reopened = await DynamoStore.open({
      client: env.dynamo,
      tableName: env.tableName,
      owner: OWNER,
      sessionId: imported.sessionId(),
      s3: { client: env.s3, bucket: env.bucket },
    });
    const loaded = await reopened.loadConversation();
    const original = await (await FSJSONLStore.open(fs.getSessionFile())).loadConversation();
    expect(loaded.conversation.messages).toEqual(original.conversation.messages);
    expect(reopened.metadata()).toMatchObject({
      entryCount: batches.flat().length,
      title: 'Read "a.txt" — ünïcödé ✓ and newlines',
      activeModel: { provider: 'scripted', model: 'scripted-1' },
    });

    // Exporting it again gives the file back, but for the header's session id.
    const exported = await exportSession({
      dynamo: env.dynamo,
      tableName: env.tableName,
      s3: env.s3,
      bucket: env.bucket,
      owner: OWNER,
      sessionId: imported.sessionId(),
    });
    const original_ = (await readFile(fs.getSessionFile(), 'utf8')).replace(fs.sessionId(), imported.sessionId());
    expect((await objectBytes(env, exported.key)).toString('utf8')).toBe(original_);

    // And the imported session takes appends like any other.
    await reopened.appendMessages([new RecordFactory('after-import').user('more')]);
    expect((await reopened.loadConversation()).danglingUser).toBe('more');
  });

  it('imports an exported S3 object back to an identical conversation', async () => {
    const env = await aws();
    const store = await sessionWith(env, sampleBatches());
    const exported = await exportSession({
      dynamo: env.dynamo,
      tableName: env.tableName,
      s3: env.s3,
      bucket: env.bucket,
      owner: OWNER,
      sessionId: store.sessionId(),
    });
    const imported = await importSession({
      dynamo: env.dynamo,
      tableName: env.tableName,
      owner: 'owner-importer',
      s3: { client: env.s3, bucket: env.bucket },
      source: { bucket: env.bucket, key: exported.key },
    });
    expect((await imported.loadConversation()).conversation.messages).toEqual((await store.loadConversation()).conversation.messages);
    expect(imported.metadata().owner).toBe('owner-importer');
  });

  it('leaves out a torn last line and a batch a crash cut short, as opening the file does', async () => {
    const env = await aws();
    const f = new RecordFactory('torn');
    const fs = await FSJSONLStore.create(dir);
    const kept = f.assistant('kept too');
    await fs.appendMessages([f.user('kept'), kept]);
    const cut = encodeBatch(
      SessionLog.fromHead({ count: 2, leafId: kept.id, resumeParent: kept.id, activeModel: null }).chain([f.user('lost'), f.assistant('lost')]),
    ).split('\n')[0]!;
    const file = join(dir, 'torn.jsonl');
    await writeFile(file, `${await readFile(fs.getSessionFile(), 'utf8')}${cut}\n{"type":"mess`);
    const imported = await importSession({ dynamo: env.dynamo, tableName: env.tableName, owner: OWNER, source: { file } });
    const expected = await (await FSJSONLStore.open(file)).loadConversation();
    expect(expected.conversation.length).toBe(2);
    expect((await imported.loadConversation()).conversation.messages).toEqual(expected.conversation.messages);
  });

  /**
   * A session log long enough that an offloaded line and full entry items come before line
   * 51, so they are written before it is read; its lines as bytes, without newlines.
   */
  async function longLog(name: string): Promise<Buffer[]> {
    const f = new RecordFactory(name);
    const fs = await FSJSONLStore.create(dir);
    await fs.appendMessages([f.user('read it')]);
    await fs.appendMessages([f.message({ role: 'tool_result', tool_call_id: 'x', tool_name: 'read', content: 'y'.repeat(400 * 1024), is_error: false })]);
    for (let i = 0; i < 30; i++) await fs.appendMessages([f.user(`q${i}`), f.assistant(`a${i} ${'z'.repeat(20 * 1024)}`)]);
    const bytes = await readFile(fs.getSessionFile());
    const lines: Buffer[] = [];
    for (let start = 0; start < bytes.length; ) {
      const end = bytes.indexOf(0x0a, start);
      lines.push(bytes.subarray(start, end));
      start = end + 1;
    }
    return lines;
  }

  /** Imports `lines` from a file and expects a SessionCorruptError at `line` of it that left nothing behind. */
  async function expectRefusedImport(env: LocalAws, name: string, lines: readonly Buffer[], line: number, reason: string | RegExp): Promise<void> {
    const file = join(dir, `${name}.jsonl`);
    await writeFile(file, Buffer.concat(lines.flatMap((bytes) => [bytes, Buffer.from('\n')])));
    const sessionId = `import-${name}`;
    const dynamoCalls = countCommands(env.dynamo);
    const s3Calls = countCommands(env.s3);
    const error = await importSession({
      dynamo: env.dynamo,
      tableName: env.tableName,
      owner: OWNER,
      s3: { client: env.s3, bucket: env.bucket },
      source: { file },
      sessionId,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect((error as SessionCorruptError).line).toBe(line);
    expect((error as SessionCorruptError).source).toBe(file);
    expect((error as SessionCorruptError).message).toMatch(reason);
    // Something was written before the bad line was read — and removed again.
    expect(dynamoCalls.get('PutItemCommand')).toBeGreaterThanOrEqual(2);
    expect(s3Calls.get('PutObjectCommand')).toBe(1);

    await expect(DynamoStore.open({ client: env.dynamo, tableName: env.tableName, owner: OWNER, sessionId })).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(await partitionSks(env, sessionId)).toEqual([]);
    expect(await objectKeys(env, `offload/${sessionId}/`)).toEqual([]);
    const listed = await listOwnerSessions({ client: env.dynamo, tableName: env.tableName, owner: OWNER, limit: 100 });
    expect(listed.sessions.map((session) => session.id)).not.toContain(sessionId);
  }

  it('fails an import on a corrupt line, naming the line, and leaves no session behind', async () => {
    const env = await aws();
    const lines = await longLog('corrupt');
    lines.splice(50, 0, Buffer.from('{"type":"message","id":"broken"'));
    await expectRefusedImport(env, 'corrupt', lines, 51, 'not valid JSON');
  });

  it('refuses a line that is not UTF-8 rather than import U+FFFD in place of its bytes, naming the line, and leaves no session behind', async () => {
    const env = await aws();
    const lines = await longLog('latin1');
    // Line 53 (an assistant's answer) is a whole, valid entry but for one byte: an é in Latin-1 (0xE9), not UTF-8.
    const line = Buffer.from(lines[52]!);
    const at = line.indexOf('zzz');
    expect(at).toBeGreaterThan(0);
    line[at] = 0xe9;
    lines[52] = line;
    await expectRefusedImport(env, 'latin1', lines, 53, 'not valid UTF-8');
  });

  it('refuses an entry whose id is not an id, naming the line, and leaves no session behind', async () => {
    const env = await aws();
    const lines = await longLog('bad-id');
    const entry = JSON.parse(lines[51]!.toString('utf8')) as { id: string };
    lines[51] = Buffer.from(lines[51]!.toString('utf8').replace(`"id":"${entry.id}"`, '"id":"../../etc/passwd"'));
    await expectRefusedImport(env, 'bad-id', lines, 52, /entry id "\.\.\/\.\.\/etc\/passwd" is not an id/);
  });

  it('refuses to import a message over the item limit without an S3 bucket, leaving nothing behind', async () => {
    const env = await aws();
    const f = new RecordFactory('big-import');
    const fs = await FSJSONLStore.create(dir);
    await fs.appendMessages([f.user('read it')]);
    await fs.appendMessages([f.message({ role: 'tool_result', tool_call_id: 'x', tool_name: 'read', content: 'y'.repeat(400 * 1024), is_error: false })]);
    const sessionId = 'import-without-s3';
    const error = await importSession({ dynamo: env.dynamo, tableName: env.tableName, owner: OWNER, source: { file: fs.getSessionFile() }, sessionId }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OffloadRequiredError);
    expect((error as Error).message).toContain('line 3');
    expect(await partitionSks(env, sessionId)).toEqual([]);
  });

  it('fails an import whose first line is not a session header, naming line 1', async () => {
    const env = await aws();
    await env.s3.send(new PutObjectCommand({ Bucket: env.bucket, Key: 'bad/no-header.jsonl', Body: '{"type":"message"}\n' }));
    const error = await importSession({
      dynamo: env.dynamo,
      tableName: env.tableName,
      owner: OWNER,
      s3: { client: env.s3, bucket: env.bucket },
      source: { bucket: env.bucket, key: 'bad/no-header.jsonl' },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect(error).toMatchObject({ line: 1, source: `s3://${env.bucket}/bad/no-header.jsonl` });
  });
});
