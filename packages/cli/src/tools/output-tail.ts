import { formatSize, truncateTail, type Limits } from './truncate.js';

/** Keeps the last `keep` bytes of a stream (whole chunks), and counts all of it. */
export class OutputTail {
  readonly #keep: number;
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  #dropped = 0;
  #totalNewlines = 0;
  #lastByte: number | undefined;

  constructor(keep: number) {
    this.#keep = keep;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    for (const byte of chunk) if (byte === 0x0a) this.#totalNewlines++;
    this.#lastByte = chunk[chunk.length - 1];
    while (this.#chunks.length > 1 && this.#bytes - this.#chunks[0]!.length >= this.#keep) {
      const first = this.#chunks.shift()!;
      this.#bytes -= first.length;
      this.#dropped += first.length;
    }
  }

  render(limits: Limits): string {
    const totalBytes = this.#dropped + this.#bytes;
    if (totalBytes === 0) return '(no output)';
    let text = Buffer.concat(this.#chunks).toString('utf8');
    // The kept part may start in the middle of a line: drop that partial line.
    if (this.#dropped > 0) text = text.slice(text.indexOf('\n') + 1);
    const totalLines = this.#totalNewlines + (this.#lastByte === 0x0a ? 0 : 1);
    const tail = truncateTail(text, limits);
    if (this.#dropped === 0 && !tail.truncated) return text.endsWith('\n') ? text.slice(0, -1) : text;
    return (
      `[output cut: showing the last ${tail.keptLines} of ${totalLines} lines ` + `(${formatSize(tail.keptBytes)} of ${formatSize(totalBytes)})]\n${tail.text}`
    );
  }
}
