/**
 * Checkpoints of the working folder's files, one before each prompt runs and one after its
 * turn, so that whatever the turn changed — by `edit`, `write`, `bash` or anything bash
 * started — can be undone (see rewind.ts). One private git store per session (git-store.ts).
 */
import { errorMessage } from '@panto/core';
import { rm } from 'node:fs/promises';
import { formatSize } from '../tools/truncate.js';
import {
  MAX_FILES,
  MAX_RECORDS,
  MAX_STORE_BYTES,
  pruneCheckpoints,
  readLog,
  sessionCheckpointDir,
  writeLog,
  type CheckpointLog,
  type CheckpointRecord,
} from './checkpoint-log.js';
import { gitAvailable, GitStore, type Snapshot } from './git-store.js';
import { join } from 'node:path';

/** What runs around each turn to record the files (checkpoints implement it); must not throw. */
export interface TurnHooks {
  /** After the prompt is stored, before anything runs. */
  beforePrompt(promptId: string, text: string): Promise<void>;
  /** After the step, however it ended. */
  afterTurn(promptId: string): Promise<void>;
}

/** How often (in snapshots) the store's size is measured against {@link MAX_STORE_BYTES}. */
const SIZE_CHECK_EVERY = 20;

export interface CheckpointsOptions {
  /** `$PANTO_HOME`. */
  dataDir: string;
  cwd: string;
  /** Paths of panto's own inside the working folder (session files), never snapshotted. */
  exclude: readonly string[];
  sessionId: () => string;
  sessionFile: () => string | undefined;
  warn: (message: string) => void;
  /** At most this many snapshots (default {@link MAX_RECORDS}; tests make it small). */
  maxRecords?: number;
}

/** A session's store and record, open. */
export interface OpenStore {
  store: GitStore;
  log: CheckpointLog;
  dir: string;
}

export class Checkpoints implements TurnHooks {
  readonly #options: CheckpointsOptions;
  /** Why there are none this run (git missing, too many files, a failure); undefined: they are taken. */
  #off: string | undefined;
  #open: OpenStore | undefined;
  /** The last opening asked for: openings run one after another (the warm-up and the first checkpoint may ask at once). */
  #opening: Promise<unknown> = Promise.resolve();
  /** The warm-up under way (see {@link warmUp}). */
  #warm: Promise<void> | undefined;

  private constructor(options: CheckpointsOptions, off: string | undefined) {
    this.#options = options;
    this.#off = off;
  }

  /** Checkpoints for a run; says once, as a warning, when git is missing. Prunes other sessions' expired checkpoints. */
  static async start(options: CheckpointsOptions): Promise<Checkpoints> {
    const git = await gitAvailable();
    if (!git.ok) {
      options.warn(`panto: no checkpoints of the files: ${git.reason}; /rewind can go back in the conversation only`);
      return new Checkpoints(options, git.reason);
    }
    await pruneCheckpoints(options.dataDir);
    return new Checkpoints(options, undefined);
  }

  /** Why no checkpoints are taken, or undefined when they are. */
  get off(): string | undefined {
    return this.#off;
  }

  get cwd(): string {
    return this.#options.cwd;
  }

  /**
   * Starts hashing the folder into the store in the background (interactive mode, while the
   * first prompt is typed), so that the first checkpoint only picks up what changed since.
   * Never fails: a problem shows at the first checkpoint.
   */
  warmUp(): void {
    if (this.#off !== undefined || this.#warm !== undefined) return;
    this.#warm = (async () => {
      const open = await this.open(true);
      if (open !== undefined) await open.store.snapshot(MAX_FILES);
      // Never fails (see above): the first checkpoint opens the store again and reports what went wrong.
    })().catch(() => undefined);
  }

  /** Waits for a warm-up under way (before the process exits or its folders are removed). Never rejects. */
  async settle(): Promise<void> {
    await this.#warm;
  }

  async beforePrompt(promptId: string, text = ''): Promise<void> {
    const preview = text.replace(/\s+/g, ' ').trim().slice(0, 80);
    await this.#record({ kind: 'before', prompt_id: promptId, prompt: preview });
  }

  async afterTurn(promptId: string): Promise<void> {
    await this.#record({ kind: 'after', prompt_id: promptId });
  }

  /**
   * The session's store, opened (created when `create`); undefined when checkpoints are off or
   * there is none. Openings run one at a time, each after the one before, so the store is
   * created once (two `git init`s of one folder at once fail on git's config lock).
   */
  async open(create: boolean): Promise<OpenStore | undefined> {
    if (this.#off !== undefined) return undefined;
    const sessionId = this.#options.sessionId();
    if (this.#open?.log.session_id === sessionId) return this.#open;
    const done = this.#opening.then(() => this.#openNow(sessionId, create));
    // The next opening waits for this one to settle; this one's failure reaches its caller through `done`.
    this.#opening = done.catch(() => undefined);
    return done;
  }

  async #openNow(sessionId: string, create: boolean): Promise<OpenStore | undefined> {
    if (this.#open?.log.session_id === sessionId) return this.#open;
    const dir = sessionCheckpointDir(this.#options.dataDir, sessionId);
    if (dir === undefined) return undefined;
    const log = await readLog(dir);
    if (log === undefined && !create) return undefined;
    const store = new GitStore(join(dir, 'git'), this.#options.cwd);
    if (log === undefined) await store.init(this.#options.exclude);
    this.#open = { store, dir, log: log ?? { version: 1, session_id: sessionId, cwd: this.#options.cwd, records: [] } };
    return this.#open;
  }

  /** The folder as it is now (the index follows it). */
  async snapshot(open: OpenStore): Promise<Snapshot> {
    await this.#warm;
    return await open.store.snapshot(MAX_FILES);
  }

  /** Appends a record of the folder as it is now, and keeps the store within its bounds. */
  async append(open: OpenStore, fields: Pick<CheckpointRecord, 'kind' | 'prompt_id' | 'prompt'>, snapshot?: Snapshot): Promise<CheckpointRecord> {
    const taken = snapshot ?? (await this.snapshot(open));
    const ref = (open.log.records.at(-1)?.ref ?? 0) + 1;
    const record: CheckpointRecord = { ...fields, tree: taken.tree, ref, skipped: taken.skipped, at: new Date().toISOString() };
    open.log.records.push(record);
    const file = this.#options.sessionFile();
    if (file !== undefined) open.log.session_file = file;
    await this.#bound(open);
    await writeLog(open.dir, open.log);
    return record;
  }

  /** The `before` records, oldest first: the prompts a rewind can go back to. */
  async prompts(): Promise<CheckpointRecord[]> {
    // No store to read (none yet, or it cannot be opened): no prompt to go back to; a checkpoint reports the failure.
    const open = await this.open(false).catch(() => undefined);
    return open?.log.records.filter((record) => record.kind === 'before') ?? [];
  }

  /** What `/session` shows: how many, how big, where. */
  async describe(): Promise<string> {
    if (this.#off !== undefined) return `none: ${this.#off}`;
    // As in prompts(): what /session shows, not where a failure is reported.
    const open = await this.open(false).catch(() => undefined);
    if (open === undefined) return 'none yet: one is taken before each prompt';
    const prompts = open.log.records.filter((record) => record.kind === 'before').length;
    // A size that cannot be measured shows as 0 B in /session; the store's own limits are checked where it writes.
    const size = await open.store.size().catch(() => 0);
    return `${prompts} prompt${prompts === 1 ? '' : 's'} · ${formatSize(size)} · ${open.dir} (/rewind goes back to one)`;
  }

  /** Removes this session's checkpoints. */
  async remove(): Promise<void> {
    const open = await this.open(false);
    this.#open = undefined;
    if (open !== undefined) await rm(open.dir, { recursive: true, force: true });
  }

  async #record(fields: Pick<CheckpointRecord, 'kind' | 'prompt_id' | 'prompt'>): Promise<void> {
    if (this.#off !== undefined) return;
    try {
      const open = await this.open(true);
      if (open !== undefined) await this.append(open, fields);
    } catch (error) {
      this.#off = `a checkpoint failed: ${errorMessage(error)}`;
      this.#options.warn(`panto: ${this.#off}; no more are taken this run (what the turns change cannot be rewound)`);
    }
  }

  /**
   * Drops the oldest snapshots past {@link MAX_RECORDS}, or half of them when the store is
   * over {@link MAX_STORE_BYTES} (its size is looked at every {@link SIZE_CHECK_EVERY}
   * snapshots), and prunes what only they needed.
   */
  async #bound(open: OpenStore): Promise<void> {
    const { records } = open.log;
    // Past the limit, a quarter goes at once: pruning (a gc) is not paid on every turn.
    const max = this.#options.maxRecords ?? MAX_RECORDS;
    let drop = records.length > max ? records.length - Math.floor((max * 3) / 4) : 0;
    if (records.length % SIZE_CHECK_EVERY === 0 && (await open.store.size()) > MAX_STORE_BYTES) drop = Math.max(drop, Math.floor(records.length / 2));
    if (drop === 0) return;
    records.splice(0, drop);
    await open.store.prune(new Map(records.map((record) => [String(record.ref), record.tree])));
  }
}
