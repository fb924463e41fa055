/**
 * The input line's history (Up/Down), kept across runs in a file (one per working folder:
 * `historyFileFor` in session-dir.ts), one JSON string per line, oldest first — so a prompt
 * of several lines is one entry. Only the newest {@link HISTORY_SIZE} are kept.
 */
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export const HISTORY_SIZE = 1000;

/** A folder's input history: read once at start, appended to as prompts are sent. */
export class InputHistory {
  readonly file: string | undefined;
  /** Newest first. */
  readonly #entries: string[];
  #writes: Promise<void> = Promise.resolve();
  readonly #onError: (error: Error) => void;

  private constructor(file: string | undefined, entries: string[], onError: (error: Error) => void) {
    this.file = file;
    this.#entries = entries;
    this.#onError = onError;
  }

  /** An in-memory history (nothing read or written). */
  static memory(entries: readonly string[] = []): InputHistory {
    return new InputHistory(undefined, [...entries], () => {});
  }

  /**
   * Reads `file` (a missing file is an empty history; unreadable lines are skipped). A
   * failing write later is reported through `onError` (must not throw) and never stops input.
   */
  static async load(file: string, onError: (error: Error) => void = () => {}): Promise<InputHistory> {
    let text = '';
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onError(error as Error);
    }
    const entries: string[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(line);
        if (typeof value === 'string' && value.trim() !== '') entries.push(value);
      } catch {
        // A torn last line (a crash mid-write) is skipped.
      }
    }
    const history = new InputHistory(file, dedupe(entries.reverse()).slice(0, HISTORY_SIZE), onError);
    // Compact a file that grew well past the cap.
    if (entries.length > 2 * HISTORY_SIZE) history.#enqueue(() => history.#rewrite());
    return history;
  }

  /** Newest first, no duplicates. */
  entries(): readonly string[] {
    return this.#entries;
  }

  /** Records a sent prompt (moved to the front if it was there already) and appends it to the file. */
  add(text: string): void {
    if (text.trim() === '') return;
    const at = this.#entries.indexOf(text);
    if (at === 0) return;
    if (at > 0) this.#entries.splice(at, 1);
    this.#entries.unshift(text);
    if (this.#entries.length > HISTORY_SIZE) this.#entries.length = HISTORY_SIZE;
    const file = this.file;
    if (file === undefined) return;
    this.#enqueue(async () => {
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      await appendFile(file, `${JSON.stringify(text)}\n`, { mode: 0o600 });
    });
  }

  /** Resolves when every write so far is done. */
  flushed(): Promise<void> {
    return this.#writes;
  }

  async #rewrite(): Promise<void> {
    if (this.file === undefined) return;
    const lines = [...this.#entries].reverse().map((entry) => `${JSON.stringify(entry)}\n`);
    await writeFile(this.file, lines.join(''), { mode: 0o600 });
  }

  #enqueue(write: () => Promise<void>): void {
    this.#writes = this.#writes.then(write).catch((error: unknown) => this.#onError(error instanceof Error ? error : new Error(String(error))));
  }
}

function dedupe(entries: readonly string[]): string[] {
  return [...new Set(entries)];
}
