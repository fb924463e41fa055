/**
 * Rewinding the files: the working folder made what it was at a checkpoint — files changed
 * or deleted since are written back, files created since are removed — except files
 * changed outside panto since then (between turns, or after the last one), which are named
 * and left alone unless the caller confirms.
 */
import { rm, rmdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { CheckpointRecord } from './checkpoint-log.js';
import type { Checkpoints, OpenStore } from './checkpoints.js';
import type { GitStore, Snapshot } from './git-store.js';

/** What a rewind did to the files (paths relative to the working folder). */
export interface FilesRewound {
  /** Written back as they were (changed or deleted since). */
  restored: string[];
  /** Removed (created since). */
  removed: string[];
  /** Changed outside panto since then, and left as they are. */
  kept: string[];
  /** Over the size limit, so not in the checkpoint: left as they are. */
  skipped: string[];
}

/** Where to go back to: before a prompt ran, or after its turn. */
export interface RewindTarget {
  promptId: string;
  point: 'before' | 'after';
}

export class RewindError extends Error {}

/** The record of `target`, the last one when the prompt ran more than once; undefined when there is none. */
export function findRecord(records: readonly CheckpointRecord[], target: RewindTarget): number | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.kind === target.point && record.prompt_id === target.promptId) return i;
  }
  return undefined;
}

/** Whether the files differ now from their checkpoint at `target`; undefined when there is none. */
export async function filesDifferFrom(checkpoints: Checkpoints, target: RewindTarget): Promise<boolean | undefined> {
  const open = await checkpoints.open(false);
  const index = open === undefined ? undefined : findRecord(open.log.records, target);
  if (open === undefined || index === undefined) return undefined;
  const now = await checkpoints.snapshot(open);
  return now.tree !== open.log.records[index]!.tree;
}

/**
 * Makes the files what they were at `target`. `confirm` is asked about the files changed
 * outside panto (true: overwrite them too); without it they are kept. `RewindError` (nothing
 * changed) when there is no checkpoint for the target.
 */
export async function rewindFiles(
  checkpoints: Checkpoints,
  target: RewindTarget,
  confirm?: (paths: readonly string[]) => Promise<boolean>,
): Promise<FilesRewound> {
  const open = await checkpoints.open(false);
  const index = open === undefined ? undefined : findRecord(open.log.records, target);
  if (open === undefined || index === undefined) {
    const why = checkpoints.off === undefined ? '' : ` (${checkpoints.off})`;
    throw new RewindError(`no checkpoint of the files ${target.point} prompt ${target.promptId}${why}`);
  }
  const goal = open.log.records[index]!;
  const now = await checkpoints.snapshot(open);
  const changes = await open.store.changes(goal.tree, now.tree);
  const outside = await changedOutside(open, index, now);
  const report: FilesRewound = { restored: [], removed: [], kept: [], skipped: [] };
  const skipped = new Set(goal.skipped);
  let pending = changes.filter((change) => {
    if (skipped.has(change.path)) report.skipped.push(change.path);
    else if (outside.has(change.path)) report.kept.push(change.path);
    else return true;
    return false;
  });
  if (report.kept.length > 0 && confirm !== undefined && (await confirm(report.kept))) {
    pending = changes.filter((change) => !skipped.has(change.path));
    report.kept = [];
  }
  const created = pending.filter((change) => change.status === 'A').map((change) => change.path);
  const written = pending.filter((change) => change.status !== 'A').map((change) => change.path);
  await removeFiles(open.store, created);
  await open.store.checkout(goal.tree, written);
  report.removed = created;
  report.restored = written;
  await checkpoints.append(open, { kind: 'rewind', ...(goal.prompt_id === undefined ? {} : { prompt_id: goal.prompt_id }) });
  return report;
}

/**
 * The paths changed outside panto since record `from`: what changed between the end of
 * one turn (or a rewind) and the start of the next, and since the last one ended.
 */
async function changedOutside(open: OpenStore, from: number, now: Snapshot): Promise<Set<string>> {
  const { records } = open.log;
  const paths = new Set<string>();
  const add = async (a: string, b: string) => {
    for (const change of await open.store.changes(a, b)) paths.add(change.path);
  };
  for (let k = from; k + 1 < records.length; k++) {
    if (records[k]!.kind !== 'before' && records[k + 1]!.kind === 'before') await add(records[k]!.tree, records[k + 1]!.tree);
  }
  const last = records.at(-1);
  // A last `before` is a turn that never ended (a crash): what changed since is the turn's.
  if (last !== undefined && last.kind !== 'before') await add(last.tree, now.tree);
  return paths;
}

/** Removes the files, then the folders they leave empty (never the working folder itself). */
async function removeFiles(store: GitStore, paths: readonly string[]): Promise<void> {
  const folders = new Set<string>();
  for (const path of paths) {
    const absolute = join(store.workTree, path);
    await rm(absolute, { force: true });
    folders.add(dirname(absolute));
  }
  if (paths.length > 0) await store.git(['update-index', '--remove', '-z', '--stdin'], `${paths.join('\0')}\0`);
  store.indexChanged();
  const deepestFirst = [...folders].sort((a, b) => b.length - a.length);
  for (let folder of deepestFirst) {
    while (relative(store.workTree, folder) !== '' && !relative(store.workTree, folder).startsWith('..')) {
      try {
        await rmdir(folder);
      } catch {
        break;
      }
      folder = dirname(folder);
    }
  }
}

/** A report in a few lines, for the terminal. */
export function describeRewound(report: FilesRewound): string[] {
  const list = (paths: readonly string[]) => (paths.length <= 8 ? paths.join(', ') : `${paths.slice(0, 8).join(', ')} and ${paths.length - 8} more`);
  const lines: string[] = [];
  if (report.restored.length + report.removed.length === 0) lines.push('files: nothing to restore');
  if (report.restored.length > 0) lines.push(`files restored: ${list(report.restored)}`);
  if (report.removed.length > 0) lines.push(`files removed (created since): ${list(report.removed)}`);
  if (report.kept.length > 0) lines.push(`kept, changed outside panto since then: ${list(report.kept)}`);
  if (report.skipped.length > 0) lines.push(`left alone, over the checkpoint size limit: ${list(report.skipped)}`);
  return lines;
}
