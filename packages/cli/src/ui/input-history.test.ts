import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { historyFileFor } from '../session/session-dir.js';
import { HISTORY_SIZE, InputHistory } from './input-history.js';
import { tempDir } from '../../../../test/support/temp-dir.js';

describe('InputHistory', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => (dir = await tempDir()));
  afterEach(() => dir.cleanup());

  it('keeps prompts across loads, newest first, a prompt of several lines as one entry', async () => {
    const file = historyFileFor(dir.path, '/home/ada/my-app');
    expect(file).toBe(join(dir.path, 'history', 'home-ada-my%2Dapp.jsonl'));
    const first = await InputHistory.load(file);
    expect(first.entries()).toEqual([]);
    first.add('fix the test');
    first.add('line one\nline two');
    first.add('fix the test');
    await first.flushed();
    const second = await InputHistory.load(file);
    expect(second.entries()).toEqual(['fix the test', 'line one\nline two']);
  });

  it('skips a torn last line and keeps only the newest entries', async () => {
    const file = join(dir.path, 'h.jsonl');
    const lines = Array.from({ length: HISTORY_SIZE + 5 }, (_, i) => JSON.stringify(`prompt ${i}`));
    await writeFile(file, `${lines.join('\n')}\n"torn`);
    const history = await InputHistory.load(file);
    expect(history.entries()).toHaveLength(HISTORY_SIZE);
    expect(history.entries()[0]).toBe(`prompt ${HISTORY_SIZE + 4}`);
  });

  it('reports a failing write and carries on', async () => {
    const errors: Error[] = [];
    await writeFile(join(dir.path, 'history'), 'a file where the folder should be');
    const history = await InputHistory.load(historyFileFor(dir.path, '/x'), (error) => errors.push(error));
    history.add('hello');
    await history.flushed();
    expect(errors).toHaveLength(2); // the read at load, then the write
    expect(history.entries()).toEqual(['hello']);
    await expect(readFile(join(dir.path, 'history'), 'utf8')).resolves.toContain('a file');
  });
});
