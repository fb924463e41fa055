import { FSJSONLStore } from '@panto/core';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { placeResumedFile } from './resume-file.js';
import { tempDir } from '../../../../test/support/temp-dir.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
});
afterEach(async () => cleanup());

async function sessionIn(dir: string): Promise<{ id: string; file: string }> {
  const store = await FSJSONLStore.create(dir, { cwd: root });
  await store.appendMessages([
    {
      type: 'message',
      id: '019a0000-0000-7000-8000-000000000001',
      timestamp: '2026-12-01T00:00:00.000Z',
      message: { role: 'user', content: 'hi' },
    },
  ]);
  return { id: store.sessionId(), file: store.getSessionFile() };
}

describe('placeResumedFile', () => {
  it("continues the original in another folder's session folder when this folder has none", async () => {
    const sessionsRoot = join(root, 'sessions');
    const original = await sessionIn(join(sessionsRoot, 'other-folder'));
    const exported = join(root, 'export.jsonl');
    await writeFile(exported, await readFile(original.file));
    const placed = await placeResumedFile(exported, { sessionDir: join(sessionsRoot, 'this-folder'), sessionsRoot });
    expect(placed.file).toBe(original.file);
    expect(placed.notice).toContain(`is an export of session ${original.id}`);
  });

  it('imports a file whose session is nowhere, once: resuming it again finds the copy', async () => {
    const sessionsRoot = join(root, 'sessions');
    const source = await sessionIn(join(root, 'elsewhere'));
    const sessionDir = join(sessionsRoot, 'this-folder');
    const first = await placeResumedFile(source.file, { sessionDir, sessionsRoot });
    expect(first.file).toBe(join(sessionDir, `${source.id}.jsonl`));
    expect(first.notice).toContain('imported');
    expect(await readFile(first.file)).toEqual(await readFile(source.file));
    const second = await placeResumedFile(source.file, { sessionDir, sessionsRoot });
    expect(second.file).toBe(first.file);
    expect(second.notice).toContain('continuing the session itself');
  });

  it('leaves a file inside the session folders where it is', async () => {
    const sessionsRoot = join(root, 'sessions');
    const session = await sessionIn(join(sessionsRoot, 'other-folder'));
    await mkdir(join(sessionsRoot, 'this-folder'), { recursive: true });
    expect(await placeResumedFile(session.file, { sessionDir: join(sessionsRoot, 'this-folder'), sessionsRoot })).toEqual({
      file: session.file,
    });
  });
});
