/** Helpers for the CLI's own tests (not part of the public API). */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { ToolContext } from '@panto/core';

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

/** A fresh temporary folder (real path), removed by the returned cleanup. */
export async function tempDir(prefix = 'panto-cli-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** A tool context with a signal that is never aborted, or the given one. */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, toolCallId: 'call_test' };
}
