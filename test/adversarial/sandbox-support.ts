/**
 * What the sandbox attacks share: a project folder outside every temp folder (so that a write
 * refused is refused by the sandbox), a fake home with a secret, the real bubblewrap sandbox
 * of panto (test/setup/sandbox.ts installs bwrap), and a bash tool that runs in it.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirOutsideTemp } from '../support/temp-dir.js';
import { toolContext } from '../support/tool-context.js';
import { SandboxGrants, type CommandSandbox, type SandboxNeed } from '../../packages/cli/src/sandbox/policy.js';
import { startSandbox } from '../../packages/cli/src/sandbox/start-sandbox.js';
import { createBashTool } from '../../packages/cli/src/tools/bash.js';

export interface SandboxBox {
  root: string;
  cwd: string;
  home: string;
  sandbox: CommandSandbox;
  /** Runs a command as the model would (inside the sandbox, with `granted` needs); the result's text and whether it is an error. */
  bash(command: string, granted?: SandboxNeed[]): Promise<{ text: string; error: boolean }>;
  close(): Promise<void>;
}

/** A fresh project folder and the workspace-write sandbox over it. */
export async function sandboxBox(): Promise<SandboxBox> {
  const { path: root, cleanup } = await tempDirOutsideTemp();
  const cwd = join(root, 'project');
  const home = join(root, 'home');
  await mkdir(cwd, { recursive: true });
  await mkdir(home, { recursive: true });
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
  const started = await startSandbox({ mode: 'workspace-write', allowNetwork: false, cwd, home, dataDir: join(home, '.panto'), env, show: String });
  const sandbox = started.sandbox;
  if (sandbox === undefined) throw new Error(`no sandbox: ${started.notices.join(' ')}`);
  return {
    root,
    cwd,
    home,
    sandbox,
    async bash(command, granted = []) {
      const grants = new SandboxGrants();
      grants.grant('call_test', granted);
      const tool = createBashTool({ cwd, env, sandbox, grants });
      const input = granted.length > 0 ? { command, needs: granted } : { command };
      const result = await tool.execute(input, toolContext());
      return typeof result === 'string' ? { text: result, error: false } : { text: result.content, error: result.is_error === true };
    },
    async close() {
      await started.close();
      await cleanup();
    },
  };
}
