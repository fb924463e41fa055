import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SessionConflictError, SessionCorruptError, SessionNotFoundError } from '../errors.js';
import { newId, systemClock, type Clock, type IdGenerator } from '../ids.js';
import { newestModel, rebuildConversation } from '../rebuild.js';
import {
  decodeSession,
  encodeBatch,
  encodeHeader,
  SESSION_FORMAT_VERSION,
  type DecodedSession,
  type SessionHeader,
} from '../session-format.js';
import type { ActiveModel, DiskMessage, LoadedSession, SessionEntry, SessionStore } from '../session-store.js';
import { chainBatch } from './chain.js';
import { withFileLock, type FileLockOptions } from './file-lock.js';

export interface FSJSONLStoreCreateOptions {
  /** The working folder, recorded in the header. */
  cwd?: string;
  /** The session id (default: a new UUIDv7); also the file name. */
  sessionId?: string;
  clock?: Clock;
  ids?: IdGenerator;
  lock?: FileLockOptions;
}

/**
 * One session per `<id>.jsonl` file: a header line, then one entry per line (see
 * docs/session-format.md). Every batch is one append, fsynced before `appendMessages`
 * resolves, under a lock file (`<file>.lock`) and a head check: the file must still be
 * the size this handle last saw, else the append is a `SessionConflictError`.
 *
 * @example
 * const store = await FSJSONLStore.create('~/.panto/sessions/x', { cwd: process.cwd() });
 * const resumed = await FSJSONLStore.open(store.getSessionFile());
 * const { conversation, danglingUser } = await resumed.loadConversation();
 */
export class FSJSONLStore implements SessionStore {
  readonly #file: string;
  readonly #header: SessionHeader;
  readonly #lock: FileLockOptions;
  /** The file size this handle last saw (the head check). */
  #knownSize: number;
  /** Bytes holding committed lines; beyond them only a torn line or a cut-short batch. */
  #committedBytes: number;
  #needsNewline: boolean;
  #head: string | null = null;
  #ids = new Set<string>();
  #activeModel: ActiveModel | null = null;
  /** Entries decoded by open(), handed to the first loadConversation if nothing changed. */
  #fresh: SessionEntry[] | undefined;

  private constructor(file: string, header: SessionHeader, size: number, lock: FileLockOptions) {
    this.#file = file;
    this.#header = header;
    this.#lock = lock;
    this.#knownSize = size;
    this.#committedBytes = size;
    this.#needsNewline = false;
  }

  /** Starts a new session file `<dir>/<uuidv7>.jsonl` (creating `dir`). */
  static async create(dir: string, options: FSJSONLStoreCreateOptions = {}): Promise<FSJSONLStore> {
    const folder = resolve(dir);
    await mkdir(folder, { recursive: true });
    const id = options.sessionId ?? newId();
    const header: SessionHeader = {
      type: 'session',
      version: SESSION_FORMAT_VERSION,
      id,
      timestamp: (options.clock ?? systemClock)().toISOString(),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    };
    const bytes = Buffer.from(encodeHeader(header));
    const file = join(folder, `${id}.jsonl`);
    const handle = await open(file, 'wx');
    try {
      await writeAll(handle, bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncDirectory(folder);
    return new FSJSONLStore(file, header, bytes.length, options.lock ?? {});
  }

  /** Opens an existing session file (any JSONL in the session format, wherever it is). */
  static async open(file: string, options: { lock?: FileLockOptions } = {}): Promise<FSJSONLStore> {
    const path = resolve(file);
    const bytes = await readSessionFile(path);
    const decoded = decodeSession(bytes, path);
    const store = new FSJSONLStore(path, decoded.header, bytes.length, options.lock ?? {});
    store.#adopt(decoded, bytes.length);
    store.#fresh = decoded.entries;
    return store;
  }

  /** The path of the session file. */
  getSessionFile(): string {
    return this.#file;
  }

  /** The header line's contents (id, version, creation time, cwd). */
  header(): Readonly<SessionHeader> {
    return this.#header;
  }

  sessionId(): string {
    return this.#header.id;
  }

  activeModel(): ActiveModel | null {
    return this.#activeModel;
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    if (batch.length === 0) return;
    const entries = chainBatch(batch, this.#head, this.#ids);
    const text = encodeBatch(entries);
    const written = await withFileLock(
      `${this.#file}.lock`,
      async () => {
        const handle = await open(this.#file, 'r+');
        try {
          const { size } = await handle.stat();
          if (size !== this.#knownSize) throw await this.#conflict(size);
          // Bytes past the committed part were never acknowledged: a torn line or a batch
          // a crash cut short. Cut them off so the new batch starts on a fresh line.
          if (size > this.#committedBytes) await handle.truncate(this.#committedBytes);
          const bytes = Buffer.from(this.#needsNewline ? `\n${text}` : text);
          await writeAll(handle, bytes, this.#committedBytes);
          await handle.datasync();
          return bytes.length;
        } finally {
          await handle.close();
        }
      },
      this.#lock,
    );
    this.#committedBytes += written;
    this.#knownSize = this.#committedBytes;
    this.#needsNewline = false;
    this.#fresh = undefined;
    for (const entry of entries) this.#ids.add(entry.id);
    this.#head = entries[entries.length - 1]!.id;
    this.#activeModel = newestModel(entries) ?? this.#activeModel;
  }

  async loadConversation(): Promise<LoadedSession> {
    let entries = this.#fresh;
    this.#fresh = undefined;
    if (entries === undefined || (await stat(this.#file)).size !== this.#knownSize) {
      const bytes = await readSessionFile(this.#file);
      const decoded = decodeSession(bytes, this.#file);
      this.#adopt(decoded, bytes.length);
      entries = decoded.entries;
    }
    const rebuilt = rebuildConversation(entries);
    this.#head = rebuilt.head;
    this.#activeModel = rebuilt.activeModel;
    return { conversation: rebuilt.conversation, danglingUser: rebuilt.danglingUser };
  }

  #adopt(decoded: DecodedSession, size: number): void {
    if (decoded.header.id !== this.#header.id) {
      throw new SessionCorruptError(this.#file, 1, `the session id changed from ${this.#header.id} to ${decoded.header.id}`);
    }
    const ids = new Set<string>();
    decoded.entries.forEach((entry, index) => {
      if (ids.has(entry.id)) throw new SessionCorruptError(this.#file, index + 2, `duplicate entry id ${entry.id}`);
      ids.add(entry.id);
    });
    const rebuilt = rebuildConversation(decoded.entries);
    this.#ids = ids;
    this.#head = rebuilt.head;
    this.#activeModel = rebuilt.activeModel;
    this.#knownSize = size;
    this.#committedBytes = decoded.committedBytes;
    this.#needsNewline = decoded.needsNewline;
  }

  async #conflict(size: number): Promise<SessionConflictError> {
    const expected = { entryCount: this.#ids.size, entryId: this.#head };
    try {
      const decoded = decodeSession(await readFile(this.#file), this.#file);
      const last = decoded.entries[decoded.entries.length - 1];
      return new SessionConflictError(this.sessionId(), {
        expected,
        current: { entryCount: decoded.entries.length, entryId: last?.id ?? null },
      });
    } catch {
      return new SessionConflictError(this.sessionId(), { expected, current: {} });
    }
  }
}

async function readSessionFile(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SessionNotFoundError(path, { cause: error });
    throw error;
  }
}

async function writeAll(
  handle: Awaited<ReturnType<typeof open>>,
  bytes: Buffer,
  position = 0,
): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, position + offset);
    offset += bytesWritten;
  }
}

/** Makes a new directory entry durable (the file's name, not just its bytes). */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the file itself is synced.
  }
}

