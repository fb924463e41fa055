/**
 * @panto/core benchmarks: FSJSONLStore resume (open + loadConversation) of 10,000 messages
 * against a bare readFileSync + split + JSON.parse of each line keeping the parsed objects,
 * each sample after a full GC (≤ 1.1×); and append latency per batch (fsync included)
 * against a bare append + fdatasync.
 * Run alone: npx tsx --conditions=@panto/source bench/core.ts
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_MODELS, FSJSONLStore, type DiskMessage } from '@panto/core';
import { RecordFactory } from '@panto/core/testing';
import { median, percentile, printTable, time, timeAfterGc } from './util.js';

const MESSAGES = 10_000;

function turn(f: RecordFactory, i: number): DiskMessage[][] {
  const user = f.user(`Question ${i}: ${'please look at this part of the code and explain it '.repeat(4)}`);
  if (i % 2 === 1) return [[user], [f.assistant(`Answer ${i}: ${'the function reads the file and returns its lines. '.repeat(30)}`)]];
  const call = f.message({
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me read it.' },
      { type: 'tool_call', id: `call_${i}`, name: 'read', input: { path: `src/file-${i}.ts`, limit: 200 } },
    ],
    provider: 'anthropic',
    model: DEFAULT_MODELS.anthropic,
    usage: { input_tokens: 1200 + i, output_tokens: 40, cache_read_tokens: 1000, cache_write_tokens: 0 },
    stop_reason: 'tool_use',
  });
  const result = f.message({ role: 'tool_result', tool_call_id: `call_${i}`, tool_name: 'read', content: 'x'.repeat(4096), is_error: false });
  return [[user], [call, result]];
}

/** Append latency: 200 batches of [assistant + tool result], fsync included, against a bare write + fdatasync of the same bytes. */
async function appendLatency(dir: string): Promise<{ appendTimes: number[]; rawTimes: number[] }> {
  const appendStore = await FSJSONLStore.create(dir);
  const af = new RecordFactory('append');
  const appendTimes: number[] = [];
  const rawTimes: number[] = [];
  const raw = await open(join(dir, 'raw.jsonl'), 'a');
  for (let i = 0; i < 200; i++) {
    const batch = turn(af, 2 * i)[1]!;
    appendTimes.push(await time(() => appendStore.appendMessages(batch)));
    const line = Buffer.from(`${batch.map((r) => JSON.stringify(r)).join('\n')}\n`);
    rawTimes.push(
      await time(async () => {
        await raw.write(line);
        await raw.datasync();
      }),
    );
  }
  await raw.close();
  return { appendTimes, rawTimes };
}

const ROUNDS = 21;

/**
 * The median time of each load, sampled in turn (the order rotating each round, so none
 * always runs right after another), each sample after a full GC: no sample pays for the
 * garbage the one before left.
 */
async function sampleInTurn<Name extends string>(loads: Record<Name, () => Promise<unknown>>): Promise<Record<Name, number>> {
  const names = Object.keys(loads) as Name[];
  const times = new Map<Name, number[]>(names.map((name) => [name, []]));
  for (let round = -3; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + Math.max(round, 0)) % names.length]!;
      const ms = await timeAfterGc(loads[name]);
      if (round >= 0) times.get(name)!.push(ms);
    }
  }
  return Object.fromEntries(names.map((name) => [name, median(times.get(name)!)])) as Record<Name, number>;
}

export async function runCoreBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'panto-bench-core-'));
  try {
    const store = await FSJSONLStore.create(dir, { cwd: '/bench' });
    const f = new RecordFactory('bench');
    let written = 0;
    const batches: DiskMessage[][] = [];
    for (let i = 0; written < MESSAGES; i++) {
      for (const batch of turn(f, i)) {
        batches.push(batch);
        written += batch.length;
      }
    }
    // Write in chunks of batches to build the file quickly (the file format is the same).
    for (let i = 0; i < batches.length; i += 50) await store.appendMessages(batches.slice(i, i + 50).flat());
    const file = store.getSessionFile();
    const bytes = (await readFile(file)).length;

    // The baseline: read the file, split it, JSON.parse each line and keep every parsed object.
    const bare = async () => {
      const lines = readFileSync(file, 'utf8').split('\n');
      const parsed: unknown[] = [];
      for (const line of lines) if (line !== '') parsed.push(JSON.parse(line));
      return parsed;
    };
    const panto = async () => (await FSJSONLStore.open(file)).loadConversation();
    const tree = async () => (await FSJSONLStore.open(file)).loadTree();
    const loads = await sampleInTurn({ bare, panto, tree });

    // A load after a switch to the middle.
    const middle = (await store.loadTree()).entries[Math.floor(MESSAGES / 2)]!.id;
    await store.switchLeaf(middle);
    const switched = await sampleInTurn({ bare, panto });

    const { appendTimes, rawTimes } = await appendLatency(dir);

    printTable(`@panto/core — FSJSONLStore (${MESSAGES} messages, ${(bytes / 1e6).toFixed(1)} MB)`, [
      ['resume (open + loadConversation), median', `${loads.panto.toFixed(1)} ms`],
      ['bare readFileSync + split + JSON.parse keeping each, median', `${loads.bare.toFixed(1)} ms`],
      ['resume ratio (target ≤ 1.1×)', `${(loads.panto / loads.bare).toFixed(2)}×`],
      ['tree (open + loadTree), median', `${loads.tree.toFixed(1)} ms (${(loads.tree / loads.bare).toFixed(2)}×)`],
      ['resume after a switch to the middle, median', `${switched.panto.toFixed(1)} ms (${(switched.panto / switched.bare).toFixed(2)}×)`],
      ['append 2-entry batch, p50 / p99', `${median(appendTimes).toFixed(2)} / ${percentile(appendTimes, 99).toFixed(2)} ms`],
      ['bare write + fdatasync, p50 / p99', `${median(rawTimes).toFixed(2)} / ${percentile(rawTimes, 99).toFixed(2)} ms`],
      ['append ratio (p50)', `${(median(appendTimes) / median(rawTimes)).toFixed(2)}×`],
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runCoreBench();
