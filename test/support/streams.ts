/** Streams for tests that run the CLI in-process: a stdout/stderr that keeps what was written, a piped stdin. */
import { PassThrough, Writable } from 'node:stream';

/** A writable that keeps what was written. */
export class CapturedOutput extends Writable {
  text = '';
  readonly isTTY: boolean;
  readonly columns = 100;

  constructor(isTTY = false) {
    super();
    this.isTTY = isTTY;
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** A stdin that is not a terminal, with the given lines (ended, unless `keepOpen`). */
export function pipedStdin(lines: readonly string[] = [], options: { keepOpen?: boolean } = {}): PassThrough {
  const stream = new PassThrough();
  if (lines.length > 0) stream.write(`${lines.join('\n')}\n`);
  if (!options.keepOpen) stream.end();
  return stream;
}
