/** Splits a byte stream into lines without holding more than the current line. */
import { isUtf8 } from 'node:buffer';
import { assertUtf8Lines } from '@panto/core';

export interface SourceLine {
  /** 1-based. */
  number: number;
  text: string;
  /** False only for a last line the stream ended without a newline. */
  terminated: boolean;
}

/**
 * Yields each `\n`-terminated line (without the newline), then an unterminated tail if any.
 * Lines are kept byte for byte, so a line that is not UTF-8 is a `SessionCorruptError`
 * naming `source` and the line, never text with U+FFFD in place of its bytes. An
 * unterminated tail that is not UTF-8 was cut inside a character — a torn line, as
 * `decodeSession` sees it — and is left out.
 */
export async function* splitLines(stream: AsyncIterable<Uint8Array | string>, source: string): AsyncGenerator<SourceLine> {
  let pending: Buffer[] = [];
  let number = 0;
  for await (const piece of stream) {
    let chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    let newline = chunk.indexOf(0x0a);
    while (newline !== -1) {
      pending.push(chunk.subarray(0, newline));
      const bytes = Buffer.concat(pending);
      assertUtf8Lines(bytes, source, ++number);
      yield { number, text: bytes.toString('utf8'), terminated: true };
      pending = [];
      chunk = chunk.subarray(newline + 1);
      newline = chunk.indexOf(0x0a);
    }
    if (chunk.length > 0) pending.push(Buffer.from(chunk)); // copy: the source may reuse its buffer
  }
  if (pending.length === 0) return;
  const tail = Buffer.concat(pending);
  if (isUtf8(tail)) yield { number: ++number, text: tail.toString('utf8'), terminated: false };
}
