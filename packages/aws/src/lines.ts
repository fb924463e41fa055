/** Splits a byte stream into lines without holding more than the current line. */

export interface SourceLine {
  /** 1-based. */
  number: number;
  text: string;
  /** False only for a last line the stream ended without a newline. */
  terminated: boolean;
}

/** Yields each `\n`-terminated line (without the newline), then an unterminated tail if any. */
export async function* splitLines(stream: AsyncIterable<Uint8Array | string>): AsyncGenerator<SourceLine> {
  let pending: Buffer[] = [];
  let number = 0;
  for await (const piece of stream) {
    let chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    let newline = chunk.indexOf(0x0a);
    while (newline !== -1) {
      pending.push(chunk.subarray(0, newline));
      yield { number: ++number, text: Buffer.concat(pending).toString('utf8'), terminated: true };
      pending = [];
      chunk = chunk.subarray(newline + 1);
      newline = chunk.indexOf(0x0a);
    }
    if (chunk.length > 0) pending.push(Buffer.from(chunk)); // copy: the source may reuse its buffer
  }
  if (pending.length > 0) yield { number: ++number, text: Buffer.concat(pending).toString('utf8'), terminated: false };
}
