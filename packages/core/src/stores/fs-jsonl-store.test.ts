import { appendFile, mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SessionConflictError, SessionCorruptError, SessionNotFoundError } from '../errors.js';
import { describeSessionStoreConformance } from '../testing/conformance/index.js';
import { RecordFactory } from '../testing/index.js';
import { FSJSONLStore } from './fs-jsonl-store.js';

const root = await mkdtemp(join(tmpdir(), 'panto-fs-store-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let dirCount = 0;
const freshDir = () => join(root, `d${++dirCount}`);

describeSessionStoreConformance('FSJSONLStore', {
  create: () => FSJSONLStore.create(freshDir(), { cwd: '/work/project' }),
  reopen: (store) => FSJSONLStore.open((store as FSJSONLStore).getSessionFile()),
});

const lines = async (file: string) => (await readFile(file, 'utf8')).split('\n');

describe('FSJSONLStore', () => {
  it('creates <uuidv7>.jsonl whose first line is a versioned header', async () => {
    const dir = freshDir();
    const store = await FSJSONLStore.create(dir, { cwd: '/home/me/project' });
    expect(store.getSessionFile()).toBe(join(dir, `${store.sessionId()}.jsonl`));
    expect(store.sessionId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const [header] = await lines(store.getSessionFile());
    expect(JSON.parse(header!)).toEqual({
      type: 'session',
      version: 2,
      id: store.sessionId(),
      timestamp: expect.any(String),
      cwd: '/home/me/project',
    });
  });

  it('keeps a session private: its file is 0600 and a folder it makes 0700, whatever the umask', async () => {
    const umask = process.umask(0o022);
    try {
      const dir = freshDir();
      const store = await FSJSONLStore.create(dir, { cwd: '/home/me/project' });
      const f = new RecordFactory();
      await store.appendMessages([f.user('secret'), f.assistant('kept')]);
      const fork = await store.fork((await store.loadTree()).activeLeaf!);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect((await stat(store.getSessionFile())).mode & 0o777).toBe(0o600);
      expect((await stat(fork.getSessionFile())).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(umask);
    }
  });

  it('writes a batch as consecutive lines chained by parent_id, the first carrying batch_size', async () => {
    const store = await FSJSONLStore.create(freshDir(), { sessionId: 'fixed', clock: () => new Date(0) });
    const f = new RecordFactory('e');
    await store.appendMessages([f.user('one')]);
    await store.appendMessages([f.assistant('two'), f.user('three'), f.assistant('four')]);
    const text = await readFile(store.getSessionFile(), 'utf8');
    expect(text).toBe(
      [
        '{"type":"session","version":2,"id":"fixed","timestamp":"1970-01-01T00:00:00.000Z"}',
        '{"type":"message","id":"e-000001","parent_id":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"one","provider":"scripted","model":"scripted-1"}}',
        '{"type":"message","id":"e-000002","parent_id":"e-000001","timestamp":"2026-01-01T00:00:02.000Z","batch_size":3,"message":{"role":"assistant","content":[{"type":"text","text":"two"}],"provider":"scripted","model":"scripted-1","usage":{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0},"stop_reason":"end_turn"}}',
        '{"type":"message","id":"e-000003","parent_id":"e-000002","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"three","provider":"scripted","model":"scripted-1"}}',
        '{"type":"message","id":"e-000004","parent_id":"e-000003","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"four"}],"provider":"scripted","model":"scripted-1","usage":{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0},"stop_reason":"end_turn"}}',
        '',
      ].join('\n'),
    );
  });

  it('ignores a torn last line on load, and the next append starts on a fresh line', async () => {
    const store = await FSJSONLStore.create(freshDir());
    const f = new RecordFactory();
    await store.appendMessages([f.user('q'), f.assistant('a')]);
    await appendFile(store.getSessionFile(), '{"type":"message","id":"torn","parent_id":"x","timest');
    const resumed = await FSJSONLStore.open(store.getSessionFile());
    expect((await resumed.loadConversation()).conversation.length).toBe(2);
    await resumed.appendMessages([f.user('next'), f.assistant('reply')]);
    const again = await FSJSONLStore.open(store.getSessionFile());
    const loaded = await again.loadConversation();
    expect(loaded.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const fileLines = await lines(store.getSessionFile());
    expect(fileLines.every((line) => line === '' || JSON.parse(line))).toBe(true);
  });

  it('leaves out the lines of a batch a crash cut short, and writes over them on the next append', async () => {
    const store = await FSJSONLStore.create(freshDir());
    const f = new RecordFactory();
    await store.appendMessages([f.user('q')]);
    const file = store.getSessionFile();
    const before = (await readFile(file)).length;
    await store.appendMessages([f.assistant('a1'), f.user('q2'), f.assistant('a2')]);
    const full = await readFile(file);
    // Keep the batch's first two complete lines only, as if the process died mid-write.
    const cut = full.subarray(0, full.indexOf('\n', full.indexOf('\n', before) + 1) + 1);
    await writeFile(file, cut);
    const resumed = await FSJSONLStore.open(file);
    const loaded = await resumed.loadConversation();
    expect(loaded.conversation.length).toBe(0);
    expect(loaded.danglingUser).toBe('q');
    await resumed.appendMessages([f.user('q again'), f.assistant('answer')]);
    expect((await readFile(file)).subarray(0, before)).toEqual(full.subarray(0, before));
    const final = await (await FSJSONLStore.open(file)).loadConversation();
    expect(final.conversation.messages.map((m) => (m.role === 'user' ? m.content : m.role))).toEqual(['q again', 'assistant']);
  });

  it('accepts a whole last line that lost only its newline, and adds one before the next batch', async () => {
    const store = await FSJSONLStore.create(freshDir());
    const f = new RecordFactory();
    await store.appendMessages([f.user('q'), f.assistant('a')]);
    const file = store.getSessionFile();
    const size = (await readFile(file)).length;
    await truncate(file, size - 1);
    const resumed = await FSJSONLStore.open(file);
    expect((await resumed.loadConversation()).conversation.length).toBe(2);
    await resumed.appendMessages([f.user('q2')]);
    const loaded = await (await FSJSONLStore.open(file)).loadConversation();
    expect(loaded.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(loaded.danglingUser).toBe('q2');
    expect((await readFile(file, 'utf8')).endsWith('}\n')).toBe(true);
  });

  it('fails on a corrupt line that is not the last, naming file and line, and rewrites nothing', async () => {
    const store = await FSJSONLStore.create(freshDir());
    const f = new RecordFactory();
    await store.appendMessages([f.user('q')]);
    await store.appendMessages([f.assistant('a')]);
    const file = store.getSessionFile();
    const text = await readFile(file, 'utf8');
    const broken = text.replace('"role":"user"', '"role":"user"}{');
    await writeFile(file, broken);
    const error = await FSJSONLStore.open(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect((error as SessionCorruptError).line).toBe(2);
    expect((error as Error).message).toContain(`${file}:2:`);
    expect(await readFile(file, 'utf8')).toBe(broken);
  });

  it('rejects a line of the wrong shape, and a newer format version, with clear errors', async () => {
    const dir = freshDir();
    const store = await FSJSONLStore.create(dir);
    const file = store.getSessionFile();
    await appendFile(file, '{"type":"message","id":"x","parent_id":null,"timestamp":"t","message":{"role":"robot"}}\n{"type":"message"}\n');
    await expect(FSJSONLStore.open(file)).rejects.toThrow(/:2: unknown message role "robot"/);
    const future = join(dir, 'future.jsonl');
    await writeFile(future, '{"type":"session","version":99,"id":"f","timestamp":"t"}\n');
    await expect(FSJSONLStore.open(future)).rejects.toThrow(/format version 99 is not supported/);
  });

  it('throws SessionNotFoundError for a missing file', async () => {
    await expect(FSJSONLStore.open(join(root, 'nope.jsonl'))).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('detects a writer that does not go through a handle (the file grew): conflict, nothing written', async () => {
    const store = await FSJSONLStore.create(freshDir());
    const f = new RecordFactory();
    await store.appendMessages([f.user('q')]);
    const other = await FSJSONLStore.open(store.getSessionFile());
    await other.appendMessages([f.assistant('a')]);
    const before = await readFile(store.getSessionFile(), 'utf8');
    const error = await store.appendMessages([f.assistant('b')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionConflictError);
    expect((error as SessionConflictError).current).toMatchObject({ entryCount: 2 });
    expect(await readFile(store.getSessionFile(), 'utf8')).toBe(before);
  });

  it('forks into <new id>.jsonl beside the session: a fresh header (cwd kept) and the path as one batch', async () => {
    const dir = freshDir();
    let n = 0;
    const store = await FSJSONLStore.create(dir, {
      sessionId: 'source',
      cwd: '/w',
      clock: () => new Date(0),
      ids: () => `fork-${++n}`,
    });
    const f = new RecordFactory('k');
    await store.appendMessages([f.user('q1'), f.assistant('a1')]);
    await store.appendMessages([f.user('q2'), f.assistant('a2')]);
    const fork = await store.fork('k-000003');
    expect(fork.getSessionFile()).toBe(join(dir, 'fork-1.jsonl'));
    const forkLines = await lines(fork.getSessionFile());
    expect(forkLines[0]).toBe('{"type":"session","version":2,"id":"fork-1","timestamp":"1970-01-01T00:00:00.000Z","cwd":"/w"}');
    const original = await lines(store.getSessionFile());
    // The path's lines as they were, except that they are now one batch of three.
    expect(forkLines.slice(1)).toEqual([
      original[1]!.replace('"batch_size":2,', '"batch_size":3,'),
      original[2],
      original[3]!.replace('"batch_size":2,', ''),
      '',
    ]);
    await expect(store.fork('k-000002')).resolves.toBeInstanceOf(FSJSONLStore);
  });

  it('appends a leaf entry to a version-1 file under its version-1 header, and reads the file back by the same rule', async () => {
    const dir = freshDir();
    const f = new RecordFactory('o');
    const [q, a, q2, a2] = [f.user('q'), f.assistant('a'), f.user('q2'), f.assistant('a2')];
    const v1 = [
      '{"type":"session","version":1,"id":"old","timestamp":"2025-01-01T00:00:00.000Z"}',
      JSON.stringify({ ...q, parent_id: null }),
      JSON.stringify({ ...a, parent_id: q!.id }),
      JSON.stringify({ ...q2, parent_id: a!.id }),
      JSON.stringify({ ...a2, parent_id: q2!.id }),
      '',
    ].join('\n');
    const file = join(dir, 'old.jsonl');
    await writeFile(file, v1, { flag: 'wx' }).catch(async () => {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(dir, { recursive: true });
      await writeFile(file, v1);
    });
    const store = await FSJSONLStore.open(file, { ids: () => 'o-leaf', clock: () => new Date(0) });
    expect((await store.loadConversation()).conversation.length).toBe(4);
    await store.switchLeaf(a!.id);
    const after = await lines(file);
    expect(after[0]).toBe('{"type":"session","version":1,"id":"old","timestamp":"2025-01-01T00:00:00.000Z"}');
    expect(after[5]).toBe(`{"type":"leaf","id":"o-leaf","parent_id":"${a!.id}","timestamp":"1970-01-01T00:00:00.000Z"}`);
    expect((await (await FSJSONLStore.open(file)).loadConversation()).conversation.length).toBe(2);
  });
});
