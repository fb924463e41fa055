import { link, lstat, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.js';
import { BubblewrapSandbox, bubblewrapArgs, type BubblewrapOptions } from './bubblewrap.js';
import { placeholdersFor } from './placeholders.js';
import { protectedPaths } from './protected-paths.js';

const PLACEHOLDERS = { root: '/tmp/panto-sandbox-x', folder: '/tmp/panto-sandbox-x/denied', file: '/tmp/panto-sandbox-x/denied-file' };

let root: string;
let cleanup: () => Promise<void>;
let options: BubblewrapOptions;
beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
  await mkdir(join(root, 'work', '.git'), { recursive: true });
  options = {
    bwrap: '/usr/bin/bwrap',
    mode: 'workspace-write',
    cwd: join(root, 'work'),
    home: join(root, 'home'),
    dataDir: join(root, 'home', '.panto'),
    tempDirs: ['/tmp'],
    privateTemp: '/tmp/panto-tmp-x',
    network: { type: 'none' },
    env: {},
  };
});
afterEach(async () => cleanup());

describe('bubblewrapArgs', () => {
  it('workspace-write: / read-only, then the session’s temp folder over /tmp and the working folder writable, its tool files read-only again, hidden paths, no network, no capabilities', () => {
    const hidden = [
      { path: '/home/ada/.ssh', folder: true },
      { path: '/home/ada/.netrc', folder: false },
    ];
    const cwd = options.cwd;
    const readOnly = [`${cwd}/.git`, `${cwd}/sub/.envrc`];
    expect(bubblewrapArgs(options, new Set(), { hidden, placeholders: PLACEHOLDERS, readOnly })).toEqual([
      ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'],
      ...['--bind', '/tmp/panto-tmp-x', '/tmp', '--bind', cwd, cwd],
      ...['--ro-bind-try', `${cwd}/.git`, `${cwd}/.git`, '--ro-bind-try', `${cwd}/sub/.envrc`, `${cwd}/sub/.envrc`],
      ...['--ro-bind', PLACEHOLDERS.folder, '/home/ada/.ssh', '--ro-bind', PLACEHOLDERS.file, '/home/ada/.netrc'],
      '--unshare-net',
      ...['--unshare-pid', '--unshare-ipc', '--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--unsetenv', 'SSH_AUTH_SOCK', '--chdir', cwd],
    ]);
  });

  it('the session’s temp folder goes over a working folder that holds /tmp, and under one inside /tmp', () => {
    const none = { hidden: [], placeholders: PLACEHOLDERS, readOnly: [] };
    expect(bubblewrapArgs({ ...options, cwd: '/' }, new Set(), none).slice(7, 13)).toEqual(['--bind', '/', '/', '--bind', '/tmp/panto-tmp-x', '/tmp']);
    expect(bubblewrapArgs({ ...options, cwd: '/tmp' }, new Set(), none).slice(7, 13)).toEqual(['--bind', '/tmp', '/tmp', '--bind', '/tmp/panto-tmp-x', '/tmp']);
    expect(bubblewrapArgs({ ...options, cwd: '/tmp/work' }, new Set(), none).slice(7, 13)).toEqual([
      ...['--bind', '/tmp/panto-tmp-x', '/tmp'],
      ...['--bind', '/tmp/work', '/tmp/work'],
    ]);
  });

  it('read-only: no writable folder but a private /tmp', () => {
    const args = bubblewrapArgs({ ...options, mode: 'read-only' }, new Set(), { hidden: [], placeholders: PLACEHOLDERS, readOnly: [] });
    expect(args.slice(0, 9)).toEqual(['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp']);
    expect(args).not.toContain('--bind');
  });

  it('a granted write makes / writable (secrets stay hidden); a granted network keeps the host network', () => {
    const args = bubblewrapArgs(options, new Set(['write', 'network']), {
      hidden: [{ path: '/home/ada/.ssh', folder: true }],
      placeholders: PLACEHOLDERS,
      readOnly: [],
    });
    expect(args.slice(0, 3)).toEqual(['--bind', '/', '/']);
    expect(args).toContain('/home/ada/.ssh');
    expect(args).not.toContain('--unshare-net');
    expect(bubblewrapArgs({ ...options, network: { type: 'all' } }, new Set(), { hidden: [], placeholders: PLACEHOLDERS, readOnly: [] })).not.toContain(
      '--unshare-net',
    );
  });

  it('with allowed domains: no host network, and the proxy socket mounted', () => {
    const network = { type: 'domains' as const, allowedDomains: ['example.com'], proxySocket: '/tmp/panto-proxy-1/proxy.sock' };
    const args = bubblewrapArgs({ ...options, network }, new Set(), { hidden: [], placeholders: PLACEHOLDERS, readOnly: [] });
    expect(args).toContain('--unshare-net');
    expect(args.join(' ')).toContain('--ro-bind /tmp/panto-proxy-1 /tmp/panto-proxy-1');
  });
});

describe('placeholdersFor', () => {
  it('makes an empty folder and file of mode 000 in $PANTO_HOME/sandbox, and repairs one swapped for a link', async () => {
    const made = placeholdersFor(options.dataDir, '/tmp');
    expect(made.root).toBe(join(options.dataDir, 'sandbox'));
    for (const path of [made.folder, made.file]) expect((await lstat(path)).mode & 0o777).toBe(0);
    await rm(made.file);
    await symlink(join(options.home, '.ssh'), made.file);
    placeholdersFor(options.dataDir, '/tmp');
    const repaired = await lstat(made.file);
    expect([repaired.isFile(), repaired.mode & 0o777]).toEqual([true, 0]);
  });

  it('are not covered when they sit in a hidden $PANTO_HOME (no mount point to make there)', () => {
    const inHome = {
      root: join(options.dataDir, 'sandbox'),
      folder: join(options.dataDir, 'sandbox/denied'),
      file: join(options.dataDir, 'sandbox/denied-file'),
    };
    const args = bubblewrapArgs(options, new Set(['write']), { hidden: [{ path: options.dataDir, folder: true }], placeholders: inHome, readOnly: [] });
    expect(args).not.toContain('--tmpfs');
  });
});

describe('BubblewrapSandbox.allowsWrite', () => {
  it('allows the working folder, not its tool files anywhere in it (.git, .panto, .envrc, …), pnpm’s store or anything outside', () => {
    const sandbox = new BubblewrapSandbox(options);
    const cwd = options.cwd;
    expect(sandbox.allowsWrite(join(cwd, 'src/new/file.ts'))).toBe(true);
    expect(sandbox.allowsWrite(join(cwd, 'src/.gitignore'))).toBe(true);
    expect(sandbox.allowsWrite(join(cwd, '.git/hooks/pre-commit'))).toBe(false);
    expect(sandbox.allowsWrite(join(cwd, '.panto/extensions/x.ts'))).toBe(false);
    for (const path of ['sub/.git', 'sub/.git/config', 'a/b/.envrc', '.vscode/tasks.json', 'pkg/.mcp.json', 'node_modules/.pnpm/x/index.js']) {
      expect(sandbox.allowsWrite(join(cwd, path)), path).toBe(false);
    }
    expect(sandbox.allowsWrite(join(cwd, '../outside.txt'))).toBe(false);
    expect(sandbox.allowsWrite('/tmp/scratch.txt')).toBe(false);
    expect(new BubblewrapSandbox({ ...options, mode: 'read-only' }).allowsWrite(join(cwd, 'a.txt'))).toBe(false);
  });

  it('follows links out of the folder: a linked file, a linked folder, a dangling link, a hard link', async () => {
    const cwd = options.cwd;
    const outside = join(root, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'rc'), '');
    await symlink(join(outside, 'rc'), join(cwd, 'rc-link'));
    await symlink(outside, join(cwd, 'dir-link'));
    await symlink(join(outside, 'not-yet'), join(cwd, 'dangling'));
    await link(join(outside, 'rc'), join(cwd, 'hard-link'));
    const sandbox = new BubblewrapSandbox(options);
    for (const name of ['rc-link', 'dir-link/new.txt', 'dangling', 'hard-link']) expect(sandbox.allowsWrite(join(cwd, name)), name).toBe(false);
  });
});

describe('BubblewrapSandbox.allowsRead', () => {
  it('refuses what the sandbox hides, also through a link in the folder', async () => {
    await mkdir(join(options.home, '.aws'), { recursive: true });
    await writeFile(join(options.home, '.aws', 'credentials'), '');
    await symlink(join(options.home, '.aws', 'credentials'), join(options.cwd, 'innocent.txt'));
    const sandbox = new BubblewrapSandbox(options);
    expect(sandbox.allowsRead(join(options.home, '.aws', 'credentials'))).toBe(false);
    expect(sandbox.allowsRead(join(options.cwd, 'innocent.txt'))).toBe(false);
    expect(sandbox.allowsRead(join(options.cwd, 'src', 'a.ts'))).toBe(true);
  });
});

describe('protectedPaths', () => {
  it('finds the secrets that exist, panto’s folder and .env files above the working folder, never the folder’s own', async () => {
    const home = options.home;
    await mkdir(join(home, '.ssh'), { recursive: true });
    await mkdir(join(home, '.config', 'gh'), { recursive: true });
    await mkdir(options.dataDir, { recursive: true });
    await writeFile(join(home, '.npmrc'), '//registry/:_authToken=x');
    await writeFile(join(root, '.env'), 'A=1');
    await writeFile(join(root, '.env.local'), 'A=1');
    await writeFile(join(options.cwd, '.env'), 'OWN=1');
    const found = protectedPaths({ cwd: options.cwd, home, dataDir: options.dataDir, env: {} }).filter((entry) => entry.path.startsWith(root));
    expect(found).toEqual([
      { path: join(home, '.ssh'), folder: true },
      { path: join(home, '.config/gh'), folder: true },
      { path: join(home, '.npmrc'), folder: false },
      { path: options.dataDir, folder: true },
      { path: join(root, '.env'), folder: false },
      { path: join(root, '.env.local'), folder: false },
    ]);
  });

  it('hides the sockets of the terminal multiplexer panto runs in, where they are not in the temp folder', async () => {
    const sockets = join(root, 'sockets');
    await mkdir(join(sockets, `tmux-${process.getuid?.()}`), { recursive: true });
    await writeFile(join(sockets, 'default'), '');
    await mkdir(join(sockets, 'screens'));
    const env = { TMUX: `${join(sockets, 'default')},1234,0`, TMUX_TMPDIR: sockets, SCREENDIR: join(sockets, 'screens') };
    const found = protectedPaths({ cwd: options.cwd, home: options.home, dataDir: options.dataDir, env }).map((entry) => entry.path);
    expect(found).toEqual(expect.arrayContaining([join(sockets, 'default'), join(sockets, `tmux-${process.getuid?.()}`), join(sockets, 'screens')]));
  });

  it('leaves out a path that holds the working folder (panto run inside ~/.panto)', async () => {
    await mkdir(join(options.dataDir, 'extensions'), { recursive: true });
    const found = protectedPaths({ cwd: join(options.dataDir, 'extensions'), home: options.home, dataDir: options.dataDir, env: {} });
    expect(found.map((entry) => entry.path)).not.toContain(options.dataDir);
  });
});
