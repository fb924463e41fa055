/**
 * @panto/core benchmarks: FSJSONLStore load time against a bare JSON.parse of the same
 * lines, and append latency per batch (fsync included) against a bare append + fdatasync.
 * Run alone: npx tsx --conditions=@panto/source bench/core.ts
 */
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_MODELS, FSJSONLStore, type DiskMessage } from '@panto/core';
import { RecordFactory } from '@panto/core/testing';
import { median, percentile, printTable, time } from './util.js';

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

    const bare = async () => {
      const text = await readFile(file, 'utf8');
      const lines = text.split('\n');
      const parsed: unknown[] = [];
      for (const line of lines) if (line !== '') parsed.push(JSON.parse(line));
      return parsed.length;
    };
    const panto = async () => (await (await FSJSONLStore.open(file)).loadConversation()).conversation.length;
    for (let i = 0; i < 3; i++) {
      await bare();
      await panto();
    }
    const bareTimes: number[] = [];
    const pantoTimes: number[] = [];
    for (let i = 0; i < 15; i++) {
      bareTimes.push(await time(bare));
      pantoTimes.push(await time(panto));
    }
    const bareMs = median(bareTimes);
    const pantoMs = median(pantoTimes);

    // The whole tree (every entry, leaves, branch points), and a load after a switch to the middle.
    const tree = async () => (await (await FSJSONLStore.open(file)).loadTree()).leaves.length;
    const treeTimes: number[] = [];
    for (let i = 0; i < 3; i++) await tree();
    for (let i = 0; i < 15; i++) treeTimes.push(await time(tree));
    const middle = (await store.loadTree()).entries[Math.floor(MESSAGES / 2)]!.id;
    await store.switchLeaf(middle);
    const switchedTimes: number[] = [];
    for (let i = 0; i < 3; i++) await panto();
    for (let i = 0; i < 15; i++) switchedTimes.push(await time(panto));

    const { appendTimes, rawTimes } = await appendLatency(dir);

    printTable(`@panto/core — FSJSONLStore (${MESSAGES} messages, ${(bytes / 1e6).toFixed(1)} MB)`, [
      ['load (open + loadConversation), median', `${pantoMs.toFixed(1)} ms`],
      ['bare readFile + split + JSON.parse, median', `${bareMs.toFixed(1)} ms`],
      ['load ratio (target ≤ 1.5×)', `${(pantoMs / bareMs).toFixed(2)}×`],
      ['tree (open + loadTree), median', `${median(treeTimes).toFixed(1)} ms (${(median(treeTimes) / bareMs).toFixed(2)}×)`],
      ['load after a switch to the middle, median', `${median(switchedTimes).toFixed(1)} ms (${(median(switchedTimes) / bareMs).toFixed(2)}×)`],
      ['append 2-entry batch, p50 / p99', `${median(appendTimes).toFixed(2)} / ${percentile(appendTimes, 99).toFixed(2)} ms`],
      ['bare write + fdatasync, p50 / p99', `${median(rawTimes).toFixed(2)} / ${percentile(rawTimes, 99).toFixed(2)} ms`],
      ['append ratio (p50)', `${(median(appendTimes) / median(rawTimes)).toFixed(2)}×`],
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runCoreBench();
