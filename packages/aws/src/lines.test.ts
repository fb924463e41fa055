import { SessionCorruptError } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { splitLines, type SourceLine } from './lines.js';

async function* chunks(...parts: Array<string | number[]>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? Buffer.from(part, 'utf8') : Uint8Array.from(part);
}

async function all(stream: AsyncIterable<Uint8Array>): Promise<SourceLine[]> {
  const lines: SourceLine[] = [];
  for await (const line of splitLines(stream, 'src.jsonl')) lines.push(line);
  return lines;
}

describe('splitLines', () => {
  it('yields lines across chunk boundaries, a character split between chunks included, then an unterminated tail', async () => {
    const euro = Buffer.from('€', 'utf8'); // 3 bytes
    const lines = await all(chunks('one\ntw', [...euro.subarray(0, 1)], [...euro.subarray(1)], 'o\nthree'));
    expect(lines).toEqual([
      { number: 1, text: 'one', terminated: true },
      { number: 2, text: 'tw€o', terminated: true },
      { number: 3, text: 'three', terminated: false },
    ]);
  });

  it('refuses a line that is not UTF-8 with SessionCorruptError naming the source and line', async () => {
    const error = await all(chunks('fine\n', [0x63, 0x61, 0x66, 0xe9, 0x0a], 'never read\n')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionCorruptError);
    expect(error).toMatchObject({ source: 'src.jsonl', line: 2 });
    expect((error as Error).message).toContain('not valid UTF-8');
  });

  it('leaves out an unterminated tail cut inside a character: a torn line, as decodeSession sees it', async () => {
    const lines = await all(chunks('whole\n', [...Buffer.from('cut €', 'utf8').subarray(0, 5)]));
    expect(lines).toEqual([{ number: 1, text: 'whole', terminated: true }]);
  });
});
