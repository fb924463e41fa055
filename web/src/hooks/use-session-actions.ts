/** What can be done to an open session from its header: rename (with its title box), export, compact, delete. */
import { useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';

export type SessionAction = 'rename' | 'export' | 'compact' | 'delete';

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
}

export interface SessionActions {
  /** The action running, if any: the others wait for it. */
  working: SessionAction | null;
  /** The title being typed in the title box; null when the box is closed. */
  renaming: string | null;
  setRenaming(title: string | null): void;
  rename(title: string): Promise<void>;
  exportSession(): Promise<void>;
  compact(): Promise<void>;
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

export function useSessionActions({ api, sessionId, say, load, onChanged, onDeleted }: SessionActionsOptions): SessionActions {
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
    remove: () =>
      act('delete', async () => {
        if (!window.confirm('Delete this session? This cannot be undone.')) return;
        await api.deleteSession(sessionId);
        onDeleted();
      }),
  };
}
