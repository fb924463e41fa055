/** What can be done to an open session from its header: rename (with its title box), export, compact, fork, delete. */
import { useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { SessionSummary } from '../api/wire.js';

export type SessionAction = 'rename' | 'export' | 'compact' | 'fork' | 'delete';

export interface SessionActionsOptions {
  api: Api;
  sessionId: string;
  /** Sets the chat's notice line; null clears it. Must not throw. */
  say(notice: string | null): void;
  /** Reads the session again, after a compaction. */
  load(): Promise<unknown>;
  /** The session's list entry changed (its title). Must not throw. */
  onChanged(): void;
  /** The session was deleted. Must not throw. */
  onDeleted(): void;
  /** A fork of the session was made: a new session of the user's. Must not throw. */
  onForked(session: SessionSummary): void;
}

export interface SessionActions {
  /** The action running, if any: the others wait for it. */
  working: SessionAction | null;
  /** The title being typed in the title box; null when the box is closed. */
  renaming: string | null;
  setRenaming(title: string | null): void;
  rename(title: string): Promise<void>;
  exportSession(): Promise<void>;
  /** Compacts the session (the caller asked for a confirmation). */
  compact(): Promise<void>;
  /** Copies the path to `entryId` into a new session. */
  fork(entryId: string): Promise<void>;
  /** Deletes the session (the caller asked for a confirmation). */
  remove(): Promise<void>;
}

/** Opens `url` in a new tab as a download named `name`. */
function download(url: string, name: string): void {
  const link = document.createElement('a');
  link.href = url;
  // The URL is the bucket's (another origin), where `download` is ignored: a new tab keeps this page.
  link.download = name;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  link.click();
}

export function useSessionActions({ api, sessionId, say, load, onChanged, onDeleted, onForked }: SessionActionsOptions): SessionActions {
  const [working, setWorking] = useState<SessionAction | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);

  const act = async (name: SessionAction, action: () => Promise<void>): Promise<void> => {
    setWorking(name);
    say(null);
    try {
      await action();
    } catch (error) {
      say(describeFailure(error));
    } finally {
      setWorking(null);
    }
  };

  return {
    working,
    renaming,
    setRenaming,
    rename: (title) =>
      act('rename', async () => {
        await api.rename(sessionId, title);
        setRenaming(null);
        onChanged();
      }),
    exportSession: () =>
      act('export', async () => {
        const { url } = await api.exportSession(sessionId);
        download(url, `${sessionId}.jsonl`);
      }),
    compact: () =>
      act('compact', async () => {
        await api.compact(sessionId);
        await load();
      }),
    fork: (entryId) =>
      act('fork', async () => {
        onForked(await api.fork(sessionId, entryId));
      }),
    remove: () =>
      act('delete', async () => {
        await api.deleteSession(sessionId);
        onDeleted();
      }),
  };
}
