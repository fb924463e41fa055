/**
 * The folders the user said yes or no to, in `$PANTO_HOME/trusted-folders.json` (owner-only):
 *
 * ```json
 * { "version": 1, "folders": { "/home/ada/src/app": { "trusted": true, "decided": "2026-12-02T10:00:00.000Z",
 *     "code": [".panto/extensions/lint.ts", "MCP server \"db\": node tools/db-server.js"] } } }
 * ```
 *
 * Keyed by the folder's real path: a folder renamed or moved is a folder panto has not been
 * told about; the same folder reached through a link is that folder. `code` is what the folder
 * had when the user trusted it, `files` the SHA-256 of the files inside the folder that this
 * code runs (`projectCodeFiles`); code added or a file changed since asks again.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CliError } from '../errors.js';

export const TRUST_FILE_NAME = 'trusted-folders.json';

/** What the user decided about one folder. */
export interface FolderDecision {
  trusted: boolean;
  /** When (ISO 8601). */
  decided: string;
  /** The project code the folder had when it was decided, as `describeProjectCode` (extensions/project-code.ts) words it. */
  code: string[];
  /** The files in the folder that code runs, relative path → SHA-256, as `projectCodeFiles` found them; absent in a decision of an older panto. */
  files?: Record<string, string>;
}

interface TrustFile {
  version: 1;
  folders: { [realPath: string]: FolderDecision };
}

/** The trust list of one `$PANTO_HOME`. */
export class TrustedFolders {
  readonly file: string;
  readonly #now: () => Date;

  constructor(dataDir: string, now: () => Date = () => new Date()) {
    this.file = join(dataDir, TRUST_FILE_NAME);
    this.#now = now;
  }

  /** The decision about `realPath`, if there is one. A file that is not a trust list is an error (never overwritten). */
  async get(realPath: string): Promise<FolderDecision | undefined> {
    return (await this.#read()).folders[realPath];
  }

  /** Remembers the decision about `realPath` (read again just before, so that other folders' decisions stay). */
  async set(realPath: string, trusted: boolean, code: readonly string[], files: Readonly<Record<string, string>> = {}): Promise<FolderDecision> {
    const list = await this.#read();
    const decision: FolderDecision = { trusted, decided: this.#now().toISOString(), code: [...code], files: { ...files } };
    list.folders[realPath] = decision;
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(list, null, 2)}\n`, { mode: 0o600 });
    await chmod(temporary, 0o600);
    await rename(temporary, this.file);
    return decision;
  }

  async #read(): Promise<TrustFile> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, folders: {} };
      throw new CliError(`cannot read ${this.file}: ${(error as Error).message}`, { cause: error });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new CliError(`${this.file} is not JSON (${(error as Error).message}); fix or remove it`, { cause: error });
    }
    const folders = (json as { folders?: unknown } | null)?.folders;
    if ((json as { version?: unknown } | null)?.version !== 1 || typeof folders !== 'object' || folders === null || Array.isArray(folders)) {
      throw new CliError(`${this.file} is not a list of trusted folders ({ "version": 1, "folders": { … } }); fix or remove it`);
    }
    const valid: TrustFile['folders'] = {};
    for (const [path, entry] of Object.entries(folders)) {
      const decision = entry as Partial<FolderDecision> | null;
      if (typeof decision?.trusted !== 'boolean') continue;
      const code = Array.isArray(decision.code) ? decision.code.filter((item): item is string => typeof item === 'string') : [];
      const files = typeof decision.files === 'object' && decision.files !== null ? stringValues(decision.files) : undefined;
      valid[path] = {
        trusted: decision.trusted,
        decided: typeof decision.decided === 'string' ? decision.decided : '',
        code,
        ...(files === undefined ? {} : { files }),
      };
    }
    return { version: 1, folders: valid };
  }
}

function stringValues(record: object): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
