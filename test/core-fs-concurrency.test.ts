/**
 * Many processes on one session file: the lock admits one writer at a time, crashes leave
 * nothing that blocks the others, and no acknowledged batch is ever lost or overwritten.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FSJSONLStore, LockTimeoutError } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import { RecordFactory } from '@panto/core/testing';
import { bundleWriter } from './fixtures/fs-writers/bundle-writer.js';
import { readFile } from 'node:fs/promises';

const root = await mkdtemp(join(tmpdir(), 'panto-concurrency-'));
let writer = '';
beforeAll(async () => {
  writer = await bundleWriter();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
  if (writer) await unlink(writer).catch(() => {});
});
let count = 0;
const newSession = async () => (await FSJSONLStore.create(join(root, `s${++count}`))).getSessionFile();

interface Writer {
  proc: ChildProcessWithoutNullStreams;
  stderr: string;
  lines: AsyncIterator<string>;
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startWriter(mode: string, file: string, onLine?: (line: string) => void): Writer {
  const proc = spawn(process.execPath, [writer, mode, file], { stdio: ['pipe', 'pipe', 'pipe'] });
  const state: Writer = {
    proc,
    stderr: '',
    lines: createInterface({ input: proc.stdout })[Symbol.asyncIterator](),
    closed: new Promise((resolve) => proc.once('close', (code, signal) => resolve({ code, signal }))),
  };
  proc.stderr.on('data', (chunk: Buffer) => (state.stderr += chunk.toString()));
  if (onLine) createInterface({ input: proc.stdout }).on('line', onLine);
  return state;
}

async function nextLine(w: Writer): Promise<string> {
  const next = await w.lines.next();
  if (next.done) throw new Error(`writer ended: ${w.stderr}`);
  return next.value;
}

/** The committed entries of the file, each checked to follow the one before it. */
async function committedChain(file: string): Promise<string[]> {
  const { entries } = decodeSession(await readFile(file), file);
  for (const [i, entry] of entries.entries()) expect(entry.parent_id, `entry ${i} follows the one before`).toBe(i === 0 ? null : entries[i - 1]!.id);
  return entries.map((entry) => entry.id);
}

describe('FSJSONLStore with many writer processes', () => {
  it('lets exactly one of 6 processes appending at the same instant succeed, 20 rounds in a row, despite lock files left behind', async () => {
    const file = await newSession();
    // What crashed writers of older versions left: a lock naming a dead pid, and an empty one.
    await writeFile(`${file}.lock`, JSON.stringify({ pid: 2 ** 22 + 4321, host: hostname(), time: Date.now(), token: 'dead' }));
    const writers = Array.from({ length: 6 }, () => startWriter('rounds', file));
    const acknowledged: string[] = [];
    try {
      for (let round = 1; round <= 20; round++) {
        if (round === 10) await writeFile(`${file}.lock`, '');
        for (const w of writers) w.proc.stdin.write(`open ${round}\n`);
        for (const w of writers) expect(await nextLine(w)).toBe(`ready ${round}`);
        for (const w of writers) w.proc.stdin.write(`go ${round}\n`);
        const results = await Promise.all(writers.map(nextLine));
        const winners = results.filter((line) => line.startsWith(`ok ${round} `));
        expect(winners, `round ${round}: ${results.join(' | ')}`).toHaveLength(1);
        expect(results.filter((line) => line === `conflict ${round}`)).toHaveLength(5);
        acknowledged.push(...winners[0]!.split(' ').slice(2));
      }
    } finally {
      for (const w of writers) w.proc.stdin.end();
      await Promise.all(writers.map((w) => w.closed));
    }
    expect(writers.map((w) => w.stderr).join('')).toBe('');
    expect(await committedChain(file)).toEqual(acknowledged);
  });

  it('loses no acknowledged batch while writers are SIGKILLed every 60–200 ms for 15 s', {
    timeout: 120_000,
  }, async () => {
    const file = await newSession();
    const acknowledged = new Set<string>();
    const live = new Set<Writer>();
    const ended: Array<Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>> = [];
    const launch = (): void => {
      const w = startWriter('loop', file, (line) => {
        if (line.startsWith('ack ')) for (const id of line.slice(4).split(' ')) acknowledged.add(id);
      });
      live.add(w);
      ended.push(w.closed.then((result) => ({ ...result, stderr: w.stderr })));
    };
    for (let i = 0; i < 8; i++) launch();
    let kills = 0;
    // 15 s of kills, and on a loaded machine (timers late, writers slow to start) on until the
    // storm has been one: 40 kills and 100 acknowledged entries, within a minute.
    const start = Date.now();
    const stormed = (): boolean => Date.now() - start >= 15_000 && kills >= 40 && acknowledged.size > 100;
    while (!stormed() && Date.now() - start < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 60 + Math.random() * 140));
      const victims = [...live];
      const victim = victims[Math.floor(Math.random() * victims.length)]!;
      live.delete(victim);
      victim.proc.kill('SIGKILL');
      kills++;
      launch();
    }
    for (const w of live) w.proc.kill('SIGKILL');
    const outcomes = await Promise.all(ended);

    // No writer failed with anything but a conflict (which it handles by reloading).
    expect(outcomes.filter((o) => o.signal !== 'SIGKILL').map((o) => o.stderr)).toEqual([]);
    expect(outcomes.map((o) => o.stderr).join('')).toBe('');
    expect(kills).toBeGreaterThanOrEqual(40);
    expect(acknowledged.size).toBeGreaterThan(100);
    // The file loads, is one unbroken chain, and holds every acknowledged entry.
    const chain = new Set(await committedChain(file));
    expect([...acknowledged].filter((id) => !chain.has(id))).toEqual([]);
    const store = await FSJSONLStore.open(file);
    await store.loadConversation();
    await store.appendMessages([new RecordFactory('after').assistant('still appendable')]);
  });

  it('waits for a lock another process holds, fails with LockTimeoutError naming the file, and appends at once when that process dies', async () => {
    const file = await newSession();
    const holder = startWriter('hold', file);
    expect(await nextLine(holder)).toBe('locked');
    const store = await FSJSONLStore.open(file, { lock: { timeoutMs: 300 } });
    const error = await store.appendMessages([new RecordFactory('w').user('blocked')]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as LockTimeoutError).file).toBe(file);
    expect((error as Error).message).toContain(`fuser ${file}`);
    expect(await committedChain(file)).toEqual([]);

    holder.proc.kill('SIGKILL');
    await holder.closed;
    await store.appendMessages([new RecordFactory('w').user('after the holder died')]);
    expect((await store.loadConversation()).danglingUser).toBe('after the holder died');
  });

  it('ignores lock files that older versions or crashes left: empty, garbage, dead pid, live pid, another host', async () => {
    const leftovers = [
      '',
      'not json',
      JSON.stringify({ pid: 2 ** 22 + 99, host: hostname(), time: Date.now(), token: 'dead' }),
      JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now(), token: 'live' }),
      JSON.stringify({ pid: 1, host: 'some-other-host', time: Date.now(), token: 'elsewhere' }),
    ];
    for (const content of leftovers) {
      const file = await newSession();
      await writeFile(`${file}.lock`, content);
      const store = await FSJSONLStore.open(file, { lock: { timeoutMs: 200 } });
      await store.appendMessages([new RecordFactory('l').user(`with lock ${JSON.stringify(content)}`)]);
      expect((await FSJSONLStore.open(file)).sessionId()).toBe(store.sessionId());
    }
  });
});
