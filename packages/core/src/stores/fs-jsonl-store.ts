import { constants } from 'node:fs';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { InvalidSessionIdError, SessionConflictError, SessionCorruptError, SessionNotFoundError } from '../errors.js';
import { ID_RULE, isValidId, newId, systemClock, type Clock, type IdGenerator } from '../ids.js';
import { decodeSession, type DecodedSession } from '../session/decoder.js';
import { encodeBatch, encodeHeader, SESSION_FORMAT_VERSION, type SessionHeader } from '../session/format.js';
import { SessionLog } from '../session/log.js';
import type { ActiveModel, DiskMessage, LoadedSession, LoadOptions, SessionEntry } from '../session/records.js';
import type { SessionStore } from '../session/store.js';
import { SessionTree } from '../session/tree.js';
import { withFileLock, type FileLockOptions } from './file-lock.js';

export interface FSJSONLStoreCreateOptions {
  /** The working folder, recorded in the header. */
  cwd?: string;
  /** The session id (default: a new UUIDv7); also the file name. */
  sessionId?: string;
  /** Timestamps of the header and of leaf entries. */
  clock?: Clock;
  /** Ids of leaf entries and of forked sessions (the session id, when `sessionId` is absent). */
  ids?: IdGenerator;
  lock?: FileLockOptions;
}

export interface FSJSONLStoreOpenOptions {
  lock?: FileLockOptions;
  /** Timestamps of leaf entries and forks. */
  clock?: Clock;
  /** Ids of leaf entries and forked sessions. */
  ids?: IdGenerator;
}

/**
 * One session per `<id>.jsonl` file: a header line, then one entry per line (see
 * docs/session-format.md). Every batch is one write in append mode, fsynced before
 * `appendMessages` resolves, under the kernel's exclusive lock on the file and a head
 * check made under that lock: the file must still be the size this handle last saw and
 * still end with the line it last saw, else the append is a `SessionConflictError`.
 *
 * @example
 * const store = await FSJSONLStore.create('~/.panto/sessions/x', { cwd: process.cwd() });
 * const resumed = await FSJSONLStore.open(store.getSessionFile());
 * const { conversation, danglingUser } = await resumed.loadConversation();
 */
export class FSJSONLStore implements SessionStore {
  readonly #file: string;
  readonly #header: SessionHeader;
  readonly #options: FSJSONLStoreOpenOptions;
  /** The session as this handle last saw it. */
  #log: SessionLog;
  /** The file size this handle last saw (the head check). */
  #knownSize: number;
  /** Bytes holding committed lines; beyond them only a torn line or a cut-short batch. */
  #committedBytes: number;
  #needsNewline = false;
  /** The start of the last committed line as this handle saw it: the head check's second half. */
  #tail: Tail;
  /** Whether the log was read by open() and nothing changed since: the first load needs no read. */
  #fresh = false;

  private constructor(file: string, header: SessionHeader, bytes: Buffer, options: FSJSONLStoreOpenOptions) {
    this.#file = file;
    this.#header = header;
    this.#options = options;
    this.#log = SessionLog.empty();
    this.#knownSize = bytes.length;
    this.#committedBytes = bytes.length;
    this.#tail = tailOf(bytes, bytes.length);
  }

  /** Starts a new session file `<dir>/<uuidv7>.jsonl` (creating `dir`). */
  static async create(dir: string, options: FSJSONLStoreCreateOptions = {}): Promise<FSJSONLStore> {
    const id = options.sessionId ?? (options.ids ?? newId)();
    if (!isValidId(id)) throw new InvalidSessionIdError(id, `use ${ID_RULE}`);
    const header: SessionHeader = {
      type: 'session',
      version: SESSION_FORMAT_VERSION,
      id,
      timestamp: (options.clock ?? systemClock)().toISOString(),
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    };
    const { clock, ids, lock } = options;
    return FSJSONLStore.#createFile(resolve(dir), header, [], {
      ...(clock ? { clock } : {}),
      ...(ids ? { ids } : {}),
      ...(lock ? { lock } : {}),
    });
  }

  /** Opens an existing session file (any JSONL in the session format, wherever it is). */
  static async open(file: string, options: FSJSONLStoreOpenOptions = {}): Promise<FSJSONLStore> {
    const path = resolve(file);
    const bytes = await readSessionFile(path);
    const decoded = decodeSession(bytes, path);
    const store = new FSJSONLStore(path, decoded.header, bytes, options);
    store.#adopt(decoded, bytes);
    store.#fresh = true;
    return store;
  }

  /**
   * Writes a new session file `<folder>/<header.id>.jsonl` — the header and `entries` as one
   * batch — durably, refusing to replace a file that exists.
   */
  static async #createFile(folder: string, header: SessionHeader, entries: readonly SessionEntry[], options: FSJSONLStoreOpenOptions): Promise<FSJSONLStore> {
    // Prompts and tool output are private: the file is the owner's alone (0600), as is any
    // folder made for it (0700); existing folders keep their mode.
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const bytes = Buffer.from(encodeHeader(header) + encodeBatch(entries));
    const file = join(folder, `${header.id}.jsonl`);
    const handle = await open(file, 'wx', 0o600);
    try {
      await writeAll(handle, bytes, 0);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncDirectory(folder);
    const store = new FSJSONLStore(file, header, bytes, options);
    store.#adopt(decodeSession(bytes, file), bytes);
    store.#fresh = true;
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
    return this.#log.activeModel;
  }

  async appendMessages(batch: readonly DiskMessage[]): Promise<void> {
    if (batch.length === 0) return;
    await this.#write(this.#log.chain(batch));
  }

  async switchLeaf(entryId: string): Promise<LoadedSession> {
    const leaf = this.#log.leaf(entryId, { id: (this.#options.ids ?? newId)(), timestamp: this.#now() });
    if (leaf !== null) await this.#write([leaf]);
    return this.#log.load(this.#file, { at: entryId });
  }

  /**
   * Reads the session file's tree (the entries this handle holds, when the file has not
   * grown since it last read or wrote it).
   */
  async loadTree(): Promise<SessionTree> {
    const size = await stat(this.#file).then(
      ({ size }) => size,
      () => -1,
    );
    if (size === this.#knownSize) return this.#log.tree(this.#file);
    return SessionTree.of(decodeSession(await readSessionFile(this.#file), this.#file).entries, this.#file);
  }

  /**
   * A new session file beside this one, `<new id>.jsonl`, holding the path to `entryId` as
   * one batch, with this session's cwd; this file is not changed.
   */
  async fork(entryId: string): Promise<FSJSONLStore> {
    const path = (await this.loadTree()).pathTo(entryId);
    const header: SessionHeader = {
      type: 'session',
      version: SESSION_FORMAT_VERSION,
      id: (this.#options.ids ?? newId)(),
      timestamp: this.#now(),
      ...(this.#header.cwd === undefined ? {} : { cwd: this.#header.cwd }),
    };
    return FSJSONLStore.#createFile(dirname(this.#file), header, path, this.#options);
  }

  #now(): string {
    return (this.#options.clock ?? systemClock)().toISOString();
  }

  /** Appends chained entries (a batch, or a leaf entry) under the lock and the head check: every write of this store. */
  async #write(entries: readonly SessionEntry[]): Promise<void> {
    // What this handle knows now: a concurrent call on the same handle must not chain
    // after a head it did not see (it conflicts instead).
    const expectedSize = this.#knownSize;
    const committed = this.#committedBytes;
    const tail = this.#tail;
    const bytes = Buffer.from(this.#needsNewline ? `\n${encodeBatch(entries)}` : encodeBatch(entries));
    // Append mode: whatever happens, a write lands after the bytes that are there, never on them.
    const handle = await openForAppend(this.#file);
    try {
      await withFileLock(
        handle,
        this.#file,
        async () => {
          const { size } = await handle.stat();
          if (size !== expectedSize || !(await tailMatches(handle, tail))) throw await this.#conflict();
          // Bytes past the committed part were never acknowledged: a torn line or a batch
          // a crash cut short. Cut them off so the new batch starts on a fresh line.
          if (size > committed) await handle.truncate(committed);
          await writeAll(handle, bytes);
          await handle.datasync();
        },
        this.#options.lock ?? {},
      );
    } finally {
      await handle.close();
    }
    this.#committedBytes = committed + bytes.length;
    this.#knownSize = this.#committedBytes;
    this.#needsNewline = false;
    this.#tail = tailOf(bytes, bytes.length, committed);
    this.#fresh = false;
    this.#log.commit(entries);
  }

  async loadConversation(options: LoadOptions = {}): Promise<LoadedSession> {
    if (!this.#fresh || (await stat(this.#file)).size !== this.#knownSize) {
      const bytes = await readSessionFile(this.#file);
      this.#adopt(decodeSession(bytes, this.#file), bytes);
    }
    this.#fresh = false;
    return this.#log.load(this.#file, options);
  }

  #adopt(decoded: DecodedSession, bytes: Buffer): void {
    if (decoded.header.id !== this.#header.id) {
      throw new SessionCorruptError(this.#file, 1, `the session id changed from ${this.#header.id} to ${decoded.header.id}`);
    }
    this.#log = SessionLog.of(decoded.entries, this.#file, undefined, decoded.ids);
    this.#knownSize = bytes.length;
    this.#committedBytes = decoded.committedBytes;
    this.#needsNewline = decoded.needsNewline;
    this.#tail = tailOf(bytes, decoded.committedBytes);
  }

  async #conflict(): Promise<SessionConflictError> {
    const expected = { entryCount: this.#log.count, entryId: this.#log.leafId };
    try {
      const decoded = decodeSession(await readSessionFile(this.#file), this.#file);
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

/**
 * The whole file, read at once into a buffer of the size `fstat` gives (and on to the end,
 * should it have grown meanwhile): a resume makes a few trips to the thread pool, not one
 * per 512 KiB as `readFile` does.
 */
async function readSessionFile(path: string): Promise<Buffer> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SessionNotFoundError(path, { cause: error });
    throw error;
  }
  try {
    // One byte more than the size: the read that finds the end needs no larger buffer.
    let bytes: Buffer = Buffer.allocUnsafe((await handle.stat()).size + 1);
    let length = 0;
    for (;;) {
      if (length === bytes.length) bytes = grow(bytes);
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, length);
      if (bytesRead === 0) return bytes.subarray(0, length);
      length += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

function grow(bytes: Buffer): Buffer {
  const larger = Buffer.allocUnsafe(Math.max(64 * 1024, bytes.length * 2));
  bytes.copy(larger);
  return larger;
}

/** Where the last committed line starts, and its first bytes (enough to hold its id). */
interface Tail {
  offset: number;
  bytes: Buffer;
}

const TAIL_CHECK_BYTES = 96;

/**
 * The tail of `bytes[0, end)`, where `bytes` hold the file from `base` on: the start of the
 * last line ending at `end`.
 */
function tailOf(bytes: Buffer, end: number, base = 0): Tail {
  const lastNewline = bytes[end - 1] === 0x0a ? end - 1 : end;
  const start = lastNewline === 0 ? 0 : bytes.lastIndexOf(0x0a, lastNewline - 1) + 1;
  return {
    offset: base + start,
    bytes: Buffer.from(bytes.subarray(start, Math.min(lastNewline, start + TAIL_CHECK_BYTES))),
  };
}

/** Whether the file still holds `tail` where this handle saw it. */
async function tailMatches(handle: FileHandle, tail: Tail): Promise<boolean> {
  if (tail.bytes.length === 0) return true;
  const found = Buffer.alloc(tail.bytes.length);
  const { bytesRead } = await handle.read(found, 0, found.length, tail.offset);
  return bytesRead === found.length && found.equals(tail.bytes);
}

/** Opens an existing session file to append (no `O_CREAT`: a deleted session stays deleted). */
async function openForAppend(path: string): Promise<FileHandle> {
  try {
    return await open(path, constants.O_RDWR | constants.O_APPEND);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new SessionNotFoundError(path, { cause: error });
    throw error;
  }
}

/** Writes all of `bytes` at `position`, or at the end of the file for a handle in append mode. */
async function writeAll(handle: FileHandle, bytes: Buffer, position: number | null = null): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const at = position === null ? null : position + offset;
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, at);
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
