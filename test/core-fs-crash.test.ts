import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FSJSONLStore } from '@panto/core';

const root = await mkdtemp(join(tmpdir(), 'panto-crash-'));
afterAll(() => rm(root, { recursive: true, force: true }));
const tsx = createRequire(import.meta.url).resolve('tsx');
const child = fileURLToPath(new URL('./fixtures/fs-writers/append-forever.ts', import.meta.url));

describe('FSJSONLStore under SIGKILL', () => {
  it('still loads with every fsynced batch after the writer is killed mid-stream', async () => {
    const store = await FSJSONLStore.create(root);
    const file = store.getSessionFile();
    const proc = spawn(process.execPath, ['--conditions=@panto/source', '--import', tsx, child, file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acknowledged: { batch: number; size: number }[] = [];
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      proc.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop()!;
        for (const line of lines) {
          const [batch, size] = line.split(':').map(Number);
          acknowledged.push({ batch: batch!, size: size! });
        }
        if (acknowledged.length >= 60) {
          proc.kill('SIGKILL');
          resolve();
        }
      });
      proc.on('exit', (code, signal) => {
        if (signal !== 'SIGKILL') reject(new Error(`child exited early (${code}): ${stderr}`));
      });
    });
    await new Promise((resolve) => proc.once('close', resolve));

    const loaded = await (await FSJSONLStore.open(file)).loadConversation();
    const texts = loaded.conversation.messages.map((m) =>
      m.role === 'user' ? m.content : m.role === 'assistant' && m.content[0]?.type === 'text' ? m.content[0].text : '',
    );
    if (loaded.danglingUser !== null) texts.push(loaded.danglingUser);
    // Every acknowledged batch is there, whole and in order; anything after is whole batches only.
    let position = 0;
    for (const { batch, size } of acknowledged) {
      for (let i = 0; i < size; i++) {
        expect(texts[position++]!.startsWith(`batch ${batch} item ${i}`)).toBe(true);
      }
    }
    const extra = texts.slice(position);
    expect(extra.every((text, i) => text.startsWith(`batch ${acknowledged.length + 1} item ${i}`))).toBe(true);
    expect([0, 1 + ((acknowledged.length + 1) % 4)]).toContain(extra.length);
    // And the session can go on.
    const raw = await readFile(file);
    expect(raw.length).toBeGreaterThan(0);
  });
});
