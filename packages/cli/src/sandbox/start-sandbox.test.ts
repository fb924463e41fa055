import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox } from './start-sandbox.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'panto-start-sandbox-'));
  await mkdir(join(root, 'project'));
});
afterEach(async () => rm(root, { recursive: true, force: true }));

/** The session temp folders of this process in the host's temp folder. */
const ownTemps = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith(`panto-tmp-${process.pid}-`));

describe('startSandbox', () => {
  it('gives each sandbox a /tmp of its own, removed on close, with one exit hook for all — panto acp starts one per session', async () => {
    const request = {
      mode: 'workspace-write' as const,
      allowNetwork: false,
      cwd: join(root, 'project'),
      home: root,
      dataDir: join(root, 'panto-home'),
      env: {},
      show: String,
      // What this machine has is not the point: the sandboxes are started, never run.
      support: { available: true as const, bwrap: '/usr/bin/bwrap', socat: undefined },
    };
    const listeners = process.listenerCount('exit');
    const before = new Set(ownTemps());
    const started = [];
    for (let i = 0; i < 12; i++) started.push(await startSandbox(request));
    expect(process.listenerCount('exit') - listeners).toBeLessThanOrEqual(1);
    const made = ownTemps().filter((name) => !before.has(name));
    expect(made).toHaveLength(12);
    await Promise.all(started.map(({ close }) => close()));
    expect(made.filter((name) => existsSync(join(tmpdir(), name)))).toEqual([]);
  });
});
