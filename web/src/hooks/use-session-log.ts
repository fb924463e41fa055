/**
 * The open session's tree (`GET /sessions/{id}/tree`) and, when it has more than one branch or
 * a compaction is looked behind, its whole log (`GET /sessions/{id}/entries`) — read once, then
 * only the entries written since: the log is append-only, and the last entry read is the
 * cursor of what follows it.
 */
import { useRef, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { describeFailure } from '../api/failure.js';
import type { Entry, SessionTree } from '../api/wire.js';
import { type EntryIndex, indexEntries } from '../branches.js';

export interface SessionLog {
  /** The tree as last read; null until it has been. */
  tree: SessionTree | null;
  /** The log, indexed, once it has been read (the session has branches, or earlier messages were asked for). */
  index: EntryIndex | null;
  /**
   * Reads the tree again — after a turn, a switch, a compaction — and the new entries when the
   * session has branches (or a failed prompt), once per `entryCount`: the log only grows, so
   * the same count is the same tree. Never rejects (`say` is told why a read failed).
   */
  refresh(entryCount: number): Promise<void>;
  /** The whole log, read up to now. Null when that failed (and `say` was told why). */
  loadEntries(): Promise<EntryIndex | null>;
}

/** `say` is told, in words, why a read failed. Must not throw. */
export function useSessionLog(api: Api, sessionId: string, say: (notice: string) => void): SessionLog {
  const [tree, setTree] = useState<SessionTree | null>(null);
  const [index, setIndex] = useState<EntryIndex | null>(null);
  const entries = useRef<Entry[]>([]);
  /** The read of the log under way: a second waits for it, then reads what came after. */
  const reading = useRef<Promise<EntryIndex | null>>(Promise.resolve(null));
  /** Counts the tree reads, so that an older answer arriving late does not replace a newer one. */
  const treeReads = useRef(0);
  /** The last read of the tree, by the entry count it was asked for: the same count is not read twice. */
  const lastRead = useRef<{ entryCount: number; read: Promise<void> } | null>(null);

  const readNewEntries = async (): Promise<EntryIndex> => {
    for (;;) {
      const page = await api.entries(sessionId, entries.current.at(-1)?.id ?? null);
      entries.current = [...entries.current, ...page.entries];
      if (page.next_cursor === null) break;
    }
    const next = indexEntries(entries.current);
    setIndex(next);
    return next;
  };

  const loadEntries = (): Promise<EntryIndex | null> => {
    reading.current = reading.current.then(readNewEntries).catch((error: unknown) => {
      say(describeFailure(error));
      return null;
    });
    return reading.current;
  };

  const readTree = async (): Promise<boolean> => {
    const read = ++treeReads.current;
    try {
      const next = await api.tree(sessionId);
      if (read !== treeReads.current) return true;
      // The log first: the tree and the versions it shows then change together.
      if (next.leaves.length > 1 || entries.current.length > 0) await loadEntries();
      setTree(next);
      return true;
    } catch (error) {
      say(describeFailure(error));
      return false;
    }
  };

  const refresh = (entryCount: number): Promise<void> => {
    if (lastRead.current?.entryCount === entryCount) return lastRead.current.read;
    const read = readTree().then((ok) => {
      // A read that failed is tried again the next time.
      if (!ok && lastRead.current?.read === read) lastRead.current = null;
    });
    lastRead.current = { entryCount, read };
    return read;
  };

  return { tree, index, refresh, loadEntries };
}
