import { describe, expect, it } from 'vitest';
import { SessionCorruptError } from '../errors.js';
import { decodeSession } from './decoder.js';
import { decodeLine } from './decode-line.js';
import { encodeBatch, encodeHeader } from './format.js';
import type { SessionEntry } from './records.js';
import { everyKindOfMessage, RecordFactory } from '../testing/index.js';

const header = encodeHeader({ type: 'session', version: 1, id: 's', timestamp: '2026-01-01T00:00:00.000Z' });

function entries(): SessionEntry[] {
  const f = new RecordFactory('x');
  const records = everyKindOfMessage().map((m) => f.message(m));
  return records.map((r, i) => ({ ...r, parent_id: i === 0 ? null : records[i - 1]!.id }));
}

describe('session format', () => {
  it('encodes canonically: the same entries give the same bytes whatever their key order (tool inputs keep theirs)', () => {
    const original = entries();
    const reverseKeys = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(reverseKeys)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(
              Object.entries(value)
                .reverse()
                .map(([k, v]) => [k, k === 'input' ? v : reverseKeys(v)]),
            )
          : value;
    const shuffled = original.map((entry) => reverseKeys(entry) as SessionEntry);
    expect(JSON.stringify(shuffled[0])).not.toBe(JSON.stringify(original[0]));
    const reordered = structuredClone(original);
    const assistant = reordered[3]!;
    if (assistant.type === 'message' && assistant.message.role === 'assistant') {
      const { usage, ...rest } = assistant.message;
      (assistant as { message: unknown }).message = {
        usage: Object.fromEntries(Object.entries(usage).reverse()),
        ...rest,
      };
    }
    expect(encodeBatch(shuffled)).toBe(encodeBatch(original));
    expect(encodeBatch(reordered)).toBe(encodeBatch(original));
  });

  it('round-trips every entry through encode and decode', () => {
    const original = entries();
    const decoded = decodeSession(Buffer.from(header + encodeBatch(original)), 'mem');
    expect(decoded.entries.map(({ batch_size: _b, ...e }: SessionEntry & { batch_size?: number }) => e)).toEqual(original);
    expect(decoded.committedBytes).toBe(Buffer.byteLength(header + encodeBatch(original)));
    expect(decoded.needsNewline).toBe(false);
  });

  it('measures committed bytes in bytes, not characters, when dropping a cut-short batch', () => {
    const f = new RecordFactory('u');
    const first: SessionEntry = { ...f.user('ü✓ first'), parent_id: null };
    const batch: SessionEntry[] = [
      { ...f.assistant('ünïcödé'), parent_id: first.id },
      { ...f.user('second ✓'), parent_id: 'u-000002' },
      { ...f.assistant('lost'), parent_id: 'u-000003' },
    ];
    const committed = header + encodeBatch([first]);
    const full = committed + encodeBatch(batch);
    const cut = full.slice(0, full.lastIndexOf('{"type"')); // the batch's last line never arrived
    const decoded = decodeSession(Buffer.from(cut), 'mem');
    expect(decoded.entries.map((e) => e.id)).toEqual([first.id]);
    expect(decoded.committedBytes).toBe(Buffer.byteLength(committed));
  });

  it('rejects an empty file and a missing header with line 1 errors', () => {
    expect(() => decodeSession(Buffer.alloc(0), 'f.jsonl')).toThrow(SessionCorruptError);
    expect(() => decodeSession(Buffer.from('{"type":"message"}\n'), 'f.jsonl')).toThrow(/f\.jsonl:1: line 1 is not a session header/);
  });

  it('rejects a batch_size inside an open batch as corruption', () => {
    const f = new RecordFactory('b');
    const a: SessionEntry[] = [
      { ...f.user('1'), parent_id: null },
      { ...f.user('2'), parent_id: 'b-000001' },
    ];
    const text = encodeBatch(a).split('\n');
    const broken = `${header + text[0]}\n${text[0]!.replace('b-000001', 'b-000009')}\n${text[1]}\n`;
    expect(() => decodeSession(Buffer.from(broken), 'f')).toThrow(/f:3: a new batch starts inside an incomplete batch/);
  });

  it('refuses a line that is not valid UTF-8, naming it, instead of turning its bytes into U+FFFD', () => {
    const f = new RecordFactory('w');
    const good = encodeBatch([{ ...f.user('fine'), parent_id: null }]);
    const bad = Buffer.from(encodeBatch([{ ...f.user('caf\u00e9'), parent_id: 'w-000001' }]));
    const latin1 = Buffer.from(bad.toString('utf8').replace('caf\u00e9', 'caf\u0000'), 'utf8');
    latin1[latin1.indexOf(0x00)] = 0xe9; // a lone Latin-1 é
    const bytes = Buffer.concat([Buffer.from(header + good), latin1]);
    expect(() => decodeSession(bytes, 'f.jsonl')).toThrow(/f\.jsonl:3: not valid UTF-8/);
  });

  it('treats a torn last line cut inside a multi-byte character as torn, not corrupt', () => {
    const f = new RecordFactory('t');
    const committed = header + encodeBatch([{ ...f.user('first'), parent_id: null }]);
    const next = Buffer.from(encodeBatch([{ ...f.user('ü'), parent_id: 't-000001' }]));
    const torn = next.subarray(0, next.indexOf(Buffer.from('ü')) + 1); // half of ü
    const decoded = decodeSession(Buffer.concat([Buffer.from(committed), torn]), 'f');
    expect(decoded.entries).toHaveLength(1);
    expect(decoded.committedBytes).toBe(Buffer.byteLength(committed));
  });

  it('refuses entry ids and parent ids that are not ids (path separators, spaces, "..")', () => {
    const f = new RecordFactory('i');
    for (const id of ['../x', 'a/b', 'has space', '', 'a..b', 'x'.repeat(129)]) {
      const line = encodeBatch([{ ...f.user('hi'), id, parent_id: null }]);
      expect(() => decodeSession(Buffer.from(header + line), 'f'), id).toThrow(SessionCorruptError);
    }
    const orphan = encodeBatch([{ ...f.user('hi'), parent_id: 'no/such' }]);
    expect(() => decodeSession(Buffer.from(header + orphan), 'f')).toThrow(/f:2: entry parent_id "no\/such" is not an id/);
    const badHeader = encodeHeader({
      type: 'session',
      version: 1,
      id: '../etc',
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    expect(() => decodeSession(Buffer.from(badHeader), 'f')).toThrow(/f:1: session id "\.\.\/etc" is not an id/);
  });

  it('writes a leaf entry as its four fields and reads it back; refuses one without a parent', () => {
    const f = new RecordFactory('v');
    const first: SessionEntry = { ...f.user('q'), parent_id: null };
    const leaf: SessionEntry = {
      type: 'leaf',
      id: 'v-leaf',
      parent_id: first.id,
      timestamp: '2026-01-01T00:01:00.000Z',
    };
    expect(encodeBatch([leaf])).toBe('{"type":"leaf","id":"v-leaf","parent_id":"v-000001","timestamp":"2026-01-01T00:01:00.000Z"}\n');
    expect(decodeSession(Buffer.from(header + encodeBatch([first]) + encodeBatch([leaf])), 'f').entries).toEqual([first, leaf]);
    const orphanLeaf = '{"type":"leaf","id":"v-x","parent_id":null,"timestamp":"t"}\n';
    expect(() => decodeSession(Buffer.from(header + encodeBatch([first]) + orphanLeaf), 'f')).toThrow(/f:3: leaf entry has no parent_id/);
  });

  it('reads versions 1 and 2 and refuses a newer one, naming line 1', () => {
    const f = new RecordFactory('n');
    const body = encodeBatch([{ ...f.user('q'), parent_id: null }]);
    for (const version of [1, 2]) {
      const versioned = encodeHeader({ type: 'session', version, id: 's', timestamp: '2026-01-01T00:00:00.000Z' });
      expect(decodeSession(Buffer.from(versioned + body), 'f').header.version).toBe(version);
    }
    const newer = encodeHeader({ type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00.000Z' });
    expect(() => decodeSession(Buffer.from(newer + body), 'f')).toThrow(/f:1: session format version 3 is not supported \(this panto reads up to 2\)/);
  });
});

describe('decodeLine: JSON nested too deep, and times', () => {
  const deep = (levels: number): string => `{"x":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;
  const line = (input: string, extra = ''): string =>
    `{"type":"message","id":"a1","parent_id":null,"timestamp":"2026-12-01T10:00:00.000Z"${extra},"message":{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"tool_call","id":"c1","name":"probe","input":${input}}],"provider":"p","model":"m","usage":{"input_tokens":0,"output_tokens":0,"cache_read_tokens":0,"cache_write_tokens":0},"stop_reason":"tool_use"}}`;

  it.each([5_000, 100_000])('marks a stored line with a tool call input %i levels deep: the input is {}, the rest kept', (levels) => {
    const entry = decodeLine(line(deep(levels)), 'f', 7);
    expect(entry).toMatchObject({
      id: 'a1',
      unreadable: expect.stringMatching(/^a tool call input is nested deeper than 128 levels/),
    });
    expect(entry.type === 'message' && entry.message.content).toEqual([
      { type: 'text', text: 't' },
      { type: 'tool_call', id: 'c1', name: 'probe', input: {} },
    ]);
    expect(() => JSON.stringify(entry)).not.toThrow();
  });

  it('refuses the same line when it enters panto (an import), naming it', () => {
    expect(() => decodeLine(line(deep(5_000)), 'body', 3, 'incoming')).toThrow(
      new SessionCorruptError('body', 3, 'a tool call input is nested deeper than 128 levels, the limit for JSON from outside panto'),
    );
  });

  it('drops a field the format does not define when it is what nests too deep', () => {
    const entry = decodeLine(line('{}', `,"junk":${deep(5_000).slice(5, -1)}`), 'f', 2);
    expect(entry).not.toHaveProperty('junk');
    expect(entry.unreadable).toMatch(/^the line is nested deeper than 132 levels/);
  });

  it('keeps a line within the limit as it is, without a mark', () => {
    const entry = decodeLine(line(deep(128)), 'f', 2, 'incoming');
    expect(entry.unreadable).toBeUndefined();
  });

  it('refuses a time that is not ISO 8601 only when the line enters panto', () => {
    const text = line('{}').replace('2026-12-01T10:00:00.000Z', 'yesterday');
    expect(decodeLine(text, 'f', 2).timestamp).toBe('yesterday');
    expect(() => decodeLine(text, 'f', 2, 'incoming')).toThrow('timestamp "yesterday" is not an ISO-8601 time');
    expect(decodeLine(line('{}').replace('.000Z', '+02:00'), 'f', 2, 'incoming').timestamp).toBe('2026-12-01T10:00:00+02:00');
  });
});
