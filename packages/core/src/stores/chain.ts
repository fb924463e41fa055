import { InvalidBatchError } from '../errors.js';
import type { DiskMessage, SessionEntry } from '../session-store.js';

/**
 * Chains a batch after `head` (first record's parent is the head, each next one's the
 * record before it), refusing ids already in `existing` or repeated in the batch.
 */
export function chainBatch(
  batch: readonly DiskMessage[],
  head: string | null,
  existing: ReadonlySet<string> | ((id: string) => boolean),
): SessionEntry[] {
  const has = typeof existing === 'function' ? existing : (id: string) => existing.has(id);
  const seen = new Set<string>();
  const entries: SessionEntry[] = [];
  let parent = head;
  for (const record of batch) {
    if (typeof record.id !== 'string' || record.id === '') throw new InvalidBatchError('every record needs an id');
    if (seen.has(record.id) || has(record.id)) {
      throw new InvalidBatchError(`duplicate entry id ${record.id}: nothing was written`);
    }
    seen.add(record.id);
    entries.push({ ...record, parent_id: parent });
    parent = record.id;
  }
  return entries;
}
