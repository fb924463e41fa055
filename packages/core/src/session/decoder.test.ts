import { describe, expect, it } from 'vitest';
import { SessionCorruptError } from '../errors.js';
import { decodeSession, SessionDecoder } from './decoder.js';
import { encodeBatch, encodeHeader, withoutFraming } from './format.js';
import type { SessionEntry } from './records.js';
import { RecordFactory } from '../testing/index.js';

const header = encodeHeader({ type: 'session', version: 1, id: 's1', timestamp: '2026-01-01T00:00:00.000Z' });

function chain(f: RecordFactory, parent: string | null, ...texts: string[]): SessionEntry[] {
  const entries: SessionEntry[] = [];
  for (const text of texts) {
    const record = text.startsWith('a:') ? f.assistant(text.slice(2)) : f.user(text);
    entries.push({ ...record, parent_id: entries[entries.length - 1]?.id ?? parent });
  }
  return entries;
}

/** Feeds `text` to a streaming decoder in chunks of `size` bytes; returns the batches and the end. */
async function stream(text: string | Buffer, size = 7) {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  }
  const decoder = new SessionDecoder('s3://b/k');
  const batches = [];
  for await (const batch of decoder.decode(chunks())) batches.push(batch);
  return { batches, end: decoder.end() };
}

describe('SessionDecoder', () => {
  it('yields each batch whole, with its lines byte for byte, when its last line arrives', async () => {
    const f = new RecordFactory('d');
    const one = chain(f, null, 'first ✓');
    const two = chain(f, one[0]!.id, 'a:reply', 'follow-up', 'a:second');
    const text = header + encodeBatch(one) + encodeBatch(two);
    const { batches, end } = await stream(text);
    expect(batches.map((b) => b.entries.map((e) => e.id))).toEqual([[one[0]!.id], two.map((e) => e.id)]);
    expect(batches.map((b) => b.firstLine)).toEqual([2, 3]);
    expect(`${batches.flatMap((b) => b.lines).join('\n')}\n`).toBe(encodeBatch(one) + encodeBatch(two));
    expect(end).toMatchObject({ header: { id: 's1' }, uncommittedLines: 0, torn: false, entryCount: 4 });
  });

  it('leaves out a batch a crash cut short and a torn last line, as the file store does', async () => {
    const f = new RecordFactory('c');
    const one = chain(f, null, 'kept');
    const cut = `${encodeBatch(chain(f, one[0]!.id, 'a:x', 'y', 'a:z'))
      .split('\n')
      .slice(0, 2)
      .join('\n')}\n`;
    const cutResult = await stream(header + encodeBatch(one) + cut);
    expect(cutResult.batches.flatMap((b) => b.entries).map((e) => e.id)).toEqual([one[0]!.id]);
    expect(cutResult.end).toMatchObject({ uncommittedLines: 2, entryCount: 1 });

    const torn = Buffer.concat([Buffer.from(header + encodeBatch(one)), Buffer.from('{"type":"message","id":"c-9","par'), Buffer.from([0xe2, 0x9c])]);
    const tornResult = await stream(torn);
    expect(tornResult.batches).toHaveLength(1);
    expect(tornResult.end.torn).toBe(true);
  });

  it('refuses, naming the source and line: invalid UTF-8, a duplicate id, a parent that is not an earlier entry', async () => {
    const f = new RecordFactory('r');
    const [a] = chain(f, null, 'a');
    const good = header + encodeBatch([a!]);
    const latin1 = Buffer.concat([
      Buffer.from(good),
      Buffer.from('{"type":"message","id":"r-2","parent_id":null,"timestamp":"t","message":{"role":"user","content":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}}\n'),
    ]);
    await expect(stream(latin1)).rejects.toThrow('s3://b/k:3: not valid UTF-8');
    await expect(stream(good + encodeBatch([{ ...a!, parent_id: null } as SessionEntry]))).rejects.toThrow(`s3://b/k:3: duplicate entry id ${a!.id}`);
    const orphan = chain(f, 'r-000999', 'who is my parent');
    await expect(stream(good + encodeBatch(orphan))).rejects.toThrow('s3://b/k:3: parent_id r-000999 is not an earlier entry');
    await expect(stream('')).rejects.toThrow('s3://b/k:1: empty file: no session header');
    await expect(stream(header.slice(0, 20))).rejects.toThrow('s3://b/k:1: session header is incomplete');
  });

  it('is the decoder behind decodeSession: the same entries from bytes in memory as from a stream', async () => {
    const f = new RecordFactory('m');
    const one = chain(f, null, 'q', 'a:r');
    const text = `${header + encodeBatch(one) + encodeBatch(chain(f, one[1]!.id, 'a:partial', 'b')).split('\n')[0]}\n`;
    const fromBytes = decodeSession(Buffer.from(text), 'f');
    const fromStream = await stream(text, 3);
    expect(fromBytes.entries).toEqual(fromStream.batches.flatMap((b) => b.entries));
    expect(fromBytes.committedBytes).toBe(Buffer.byteLength(header + encodeBatch(one)));
  });

  it('counts a whole unterminated last line as committed, and the bytes of its cut-short batch as not', () => {
    const f = new RecordFactory('t');
    const one = chain(f, null, 'q');
    const whole = encodeBatch(chain(f, one[0]!.id, 'a:r')).trimEnd();
    const kept = decodeSession(Buffer.from(header + encodeBatch(one) + whole), 'f');
    expect(kept.entries).toHaveLength(2);
    expect(kept.needsNewline).toBe(true);
    const lines = encodeBatch(chain(f, 't-000002', 'a:x', 'y', 'a:z')).split('\n');
    const cut = `${header + encodeBatch(one) + whole}\n${lines[0]}\n${lines[1]}`;
    const decoded = decodeSession(Buffer.from(cut), 'f');
    expect(decoded.entries.map((e) => e.id)).toEqual(['t-000001', 't-000002']);
    expect(decoded.committedBytes).toBe(Buffer.byteLength(`${header + encodeBatch(one) + whole}\n`));
    expect(decoded.needsNewline).toBe(false);
    expect(() => decodeSession(Buffer.from(`${header + encodeBatch(one)}{"bad`), 'f')).not.toThrow(SessionCorruptError);
  });

  it('keeps each committed entry’s position by id, across batches, for the log to index by', () => {
    const f = new RecordFactory('p');
    const one = chain(f, null, 'a', 'b:one');
    const two = chain(f, one[1]!.id, 'c', 'd:two', 'e');
    const decoded = decodeSession(Buffer.from(header + encodeBatch(one) + encodeBatch(two)), 'f');
    expect([...decoded.ids]).toEqual(decoded.entries.map((entry, at) => [entry.id, at]));
    expect(decoded.ids.size).toBe(5);
  });

  it('counts committed bytes, not characters, where a cut-short batch and the lines before it hold multibyte text', () => {
    const f = new RecordFactory('u');
    const one = chain(f, null, 'café ✓ — 🙂');
    const lines = encodeBatch(chain(f, one[0]!.id, 'a:naïve ✓', 'ü', 'a:z')).split('\n');
    const committed = header + encodeBatch(one);
    const decoded = decodeSession(Buffer.from(`${committed}${lines[0]}\n${lines[1]}`), 'f');
    expect(decoded.entries.map((e) => e.id)).toEqual([one[0]!.id]);
    expect(decoded.committedBytes).toBe(Buffer.byteLength(committed));
    expect([...decoded.ids]).toEqual([[one[0]!.id, 0]]);
    expect((decoded.entries[0] as { message: { content: string } }).message.content).toBe('café ✓ — 🙂');
  });

  it('reads an ASCII log and the same log with one multibyte character alike', () => {
    const f = new RecordFactory('x');
    const ascii = chain(f, null, 'plain', 'a:reply');
    const fromAscii = decodeSession(Buffer.from(header + encodeBatch(ascii)), 'f');
    const accented = [
      ascii[0]!,
      { ...ascii[1]!, message: { ...(ascii[1] as { message: object }).message, content: [{ type: 'text', text: 'réply' }] } } as SessionEntry,
    ];
    const fromUtf8 = decodeSession(Buffer.from(header + encodeBatch(accented)), 'f');
    expect(fromAscii.entries).toMatchObject(ascii);
    expect(fromUtf8.entries).toMatchObject(accented);
    expect(fromUtf8.entries.map(withoutFraming)).toEqual(fromAscii.entries.map(withoutFraming).map((entry, i) => (i === 1 ? accented[1] : entry)));
    expect(fromUtf8.committedBytes).toBe(Buffer.byteLength(header + encodeBatch(accented)));
  });
});
