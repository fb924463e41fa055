/**
 * Folder trust: whether this run may run the working folder's own code (its extensions and
 * MCP servers). The user's answer is asked once per folder and remembered; `--trust` trusts
 * for one run; code the folder gained since it was trusted asks again.
 */
import { visible } from '../visible.js';
import type { TrustedFolders } from './trusted-folders.js';

/** The words of the question, after the lines naming what would run. */
export const TRUST_QUESTION = 'Trust this folder? [y/N]';

/** Asks the user the trust question (the lines name what would run); resolves to the answer, `false` for anything but yes. */
export type AskTrust = (lines: readonly string[]) => Promise<boolean>;

/** The trust of the working folder for one run, and what `/trust` shows and changes. */
export class FolderTrust {
  /** The folder's real path (the key of the trust list). */
  readonly folder: string;
  /** What the folder would run, one line each (see `describeProjectCode`). */
  readonly code: readonly string[];
  /** The files inside the folder that code runs, with their SHA-256 now (see `projectCodeFiles`). */
  readonly files: Readonly<Record<string, string>>;
  readonly #store: TrustedFolders;
  readonly #flag: boolean;
  #trusted = false;

  constructor(options: { folder: string; code: readonly string[]; files?: Readonly<Record<string, string>>; store: TrustedFolders; trustFlag: boolean }) {
    this.folder = options.folder;
    this.code = options.code;
    this.files = options.files ?? {};
    this.#store = options.store;
    this.#flag = options.trustFlag;
  }

  /** Whether this run runs the folder's code (decided by {@link decide}). */
  get trusted(): boolean {
    return this.#trusted;
  }

  /**
   * Decides for this run: `--trust`, else a remembered yes that covers all of today's code, else
   * the user's answer (remembered) when `ask` is given, else no. Resolves to what to say on
   * stderr when the code is skipped (undefined when it runs, or there is none).
   */
  async decide(ask: AskTrust | undefined): Promise<string | undefined> {
    if (this.#flag) {
      this.#trusted = true;
      return undefined;
    }
    if (this.code.length === 0) return undefined;
    try {
      return await this.#decide(ask);
    } catch (error) {
      // An unreadable trust list trusts nothing, and is left for the user to fix.
      this.#trusted = false;
      return this.#skipped((error as Error).message, 'fix the file, or panto --trust (this run)');
    }
  }

  async #decide(ask: AskTrust | undefined): Promise<string | undefined> {
    const decision = await this.#store.get(this.folder);
    const added = this.code.filter((line) => !decision?.code.includes(line));
    // A file the code runs whose content is not what was trusted (a decision of an older panto
    // remembered none): a sandboxed command may have written it.
    const changed = Object.keys(this.files).filter((path) => decision?.files?.[path] !== this.files[path]);
    if (decision?.trusted === true && added.length === 0 && changed.length === 0) {
      this.#trusted = true;
      return undefined;
    }
    if (decision?.trusted === false) return this.#skipped('you chose not to trust this folder', '/trust yes');
    const since = decision?.trusted === true;
    if (ask !== undefined) {
      const intro = since
        ? 'This folder has code panto would run with your rights, some of it new or changed since you trusted the folder:'
        : 'This folder has code of its own that panto would run with your rights:';
      const lines = [intro, ...this.code.map((line) => `  ${line}${since && added.includes(line) ? '  (new)' : ''}`)];
      if (since && changed.length > 0) lines.push(`  changed since: ${changed.join(', ')}`);
      const yes = await ask(lines);
      await this.#store.set(this.folder, yes, this.code, this.files);
      this.#trusted = yes;
      return yes ? undefined : this.#skipped('not trusted', '/trust yes');
    }
    const why = !since
      ? 'this folder is not trusted'
      : changed.length > 0
        ? `${changed.join(', ')} changed since you trusted the folder`
        : 'it changed since you trusted the folder';
    return this.#skipped(why, 'panto --trust (this run), or /trust yes');
  }

  /** What `/trust` shows. */
  async describe(): Promise<string> {
    const decision = await this.#store.get(this.folder);
    const remembered =
      decision === undefined ? 'not decided yet' : `${decision.trusted ? 'trusted' : 'not trusted'}${decision.decided ? ` (since ${decision.decided})` : ''}`;
    const now = this.#trusted ? (this.#flag ? 'runs (--trust)' : 'runs') : 'skipped';
    const lines = [`folder    ${visible(this.folder)}`, `trust     ${remembered}`];
    if (this.code.length === 0) lines.push('code      none of its own (.panto/extensions/, .panto/mcp.json)');
    else lines.push(`code      ${now} this run:`, ...this.code.map((line) => `            ${visible(line)}`));
    lines.push('/trust yes trusts this folder, /trust no stops trusting it (remembered; it applies from the next start).');
    return lines.join('\n');
  }

  /** `/trust yes|no`: remembers the decision with today's code; resolves to what to say. */
  async set(trusted: boolean): Promise<string> {
    await this.#store.set(this.folder, trusted, this.code, this.files);
    const folder = visible(this.folder);
    if (trusted === this.#trusted || this.code.length === 0) return `${trusted ? 'trusted' : 'no longer trusted'}: ${folder}`;
    return trusted
      ? `trusted: ${folder}. Its code runs from the next start of panto here.`
      : `no longer trusted: ${folder}. What already runs stops with this panto; the next start skips it.`;
  }

  #skipped(why: string, how: string): string {
    // Escaped as the question escapes them: a server's name must not rewrite the line.
    return `panto: skipped this folder's own code (${visible(why)}): ${this.code.map(visible).join('; ')}. To run it: ${how}.`;
  }
}
