import { SessionCorruptError, type SessionEntry } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { decodeItemText } from './entry-item.js';

describe('decodeItemText', () => {
  const entry = (id: string, parent: string | null): string =>
    JSON.stringify({ type: 'message', id, parent_id: parent, timestamp: 't', message: { role: 'user', content: id } });

  it('decodes every line with the session codec', () => {
    const into: SessionEntry[] = [];
    decodeItemText(`${entry('a', null)}\n${entry('b', 'a')}\n`, 2, 'item', into);
    expect(into.map((e) => [e.id, e.parent_id])).toEqual([
      ['a', null],
      ['b', 'a'],
    ]);
  });

  it('names the item and the line of a corrupt line', () => {
    const error = (() => {
      try {
        decodeItemText(`${entry('a', null)}\n{"type":"message","id":\n`, 2, 'dynamodb:t/SESSION#s/E#000000000004', []);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect(error).toMatchObject({ source: 'dynamodb:t/SESSION#s/E#000000000004', line: 2 });
  });

  it('refuses an item whose line count disagrees with its count attribute', () => {
    expect(() => decodeItemText(`${entry('a', null)}\n`, 2, 'item', [])).toThrow(SessionCorruptError);
  });
});
