// A writer process for the concurrency tests (bundled by ./bundle-writer.ts).
//
//   writer loop <file>     appends batches forever: prints "ack <id> <id> …" once each batch
//                          is acknowledged; on a conflict reloads and retries; any other
//                          error goes to stderr and ends the process with status 1.
//   writer rounds <file>   per stdin line "open N": opens the session and prints "ready N";
//                          "go N": appends one batch, prints "ok N <ids>" or "conflict N".
//   writer hold <file>     takes the file's write lock, prints "locked", and waits.
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { SessionConflictError } from '../../errors.js';
import type { DiskMessage } from '../../session/store.js';
import { RecordFactory } from '../../testing/fixtures.js';
import { withFileLock } from '../file-lock.js';
import { FSJSONLStore } from '../fs-jsonl-store.js';

const [mode, file] = process.argv.slice(2) as [string, string];
const f = new RecordFactory(`p${process.pid}`);

/**
 * Batch `n`: 1–3 entries ending with an assistant message, so a reloaded handle always
 * chains after the last entry (a trailing user prompt would be answered as its sibling).
 */
function batch(n: number): DiskMessage[] {
  const size = 1 + (n % 3);
  return Array.from({ length: size }, (_, i) =>
    (size - 1 - i) % 2 === 1 ? f.user(`${n}.${i} ${'x'.repeat(n % 5 === 0 ? 8_000 : 40)}`) : f.assistant(`${n}.${i}`),
  );
}

const fail = (error: unknown): never => {
  process.stderr.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
  process.exit(1);
};

if (mode === 'loop') {
  const store = await FSJSONLStore.open(file);
  await store.loadConversation();
  for (let n = 1; ; n++) {
    const records = batch(n);
    for (;;) {
      try {
        await store.appendMessages(records);
        break;
      } catch (error) {
        if (!(error instanceof SessionConflictError)) fail(error);
        await store.loadConversation().catch(fail);
      }
    }
    process.stdout.write(`ack ${records.map((r) => r.id).join(' ')}\n`);
  }
} else if (mode === 'rounds') {
  let store: FSJSONLStore | undefined;
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, round] = line.split(' ');
    if (command === 'open') {
      store = await FSJSONLStore.open(file).catch(fail);
      process.stdout.write(`ready ${round}\n`);
    } else if (command === 'go') {
      const records = batch(Number(round));
      try {
        await store!.appendMessages(records);
        process.stdout.write(`ok ${round} ${records.map((r) => r.id).join(' ')}\n`);
      } catch (error) {
        if (!(error instanceof SessionConflictError)) fail(error);
        process.stdout.write(`conflict ${round}\n`);
      }
    }
  }
} else if (mode === 'hold') {
  const handle = await open(file, 'r+');
  await withFileLock(handle, file, async () => {
    process.stdout.write('locked\n');
    await new Promise(() => setInterval(() => {}, 60_000)); // held until killed
  });
} else {
  fail(`unknown mode ${mode}`);
}
