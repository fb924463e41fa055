import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDirOutsideTemp } from '../../../../test/support/temp-dir.js';
import { findProgram } from './detect.js';
import { ToolFileScanner } from './tool-files.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ path: root, cleanup } = await tempDirOutsideTemp('panto-tool-files-'));
});
afterEach(async () => cleanup());

describe('ToolFileScanner', () => {
  it('finds the tool files anywhere but in node_modules (pnpm’s store aside), not walking into them nor through links', async () => {
    await mkdir(join(root, 'a', 'b', '.git', 'hooks'), { recursive: true });
    await writeFile(join(root, 'a', '.envrc'), '');
    await mkdir(join(root, 'node_modules', 'pkg', '.vscode'), { recursive: true });
    await mkdir(join(root, 'node_modules', '.pnpm'), { recursive: true });
    await mkdir(join(root, 'elsewhere', '.idea'), { recursive: true });
    await symlink(join(root, 'elsewhere'), join(root, 'link'));
    await symlink('missing', join(root, '.mcp.json'));
    const found = new ToolFileScanner(root).scan();
    const paths = [
      join(root, '.mcp.json'),
      join(root, 'a', '.envrc'),
      join(root, 'a', 'b', '.git'),
      join(root, 'elsewhere', '.idea'),
      join(root, 'node_modules', '.pnpm'),
    ];
    expect(new Set(found.map((file) => file.path))).toEqual(new Set(paths));
    expect(found).toHaveLength(paths.length);
    expect(found.find((file) => file.path.endsWith('.mcp.json'))?.dangling).toBe(true);
  });

  it('sees what a later change adds, also in a folder it had read before', async () => {
    const scanner = new ToolFileScanner(root);
    await mkdir(join(root, 'sub'));
    expect(scanner.scan()).toEqual([]);
    await writeFile(join(root, 'sub', '.envrc'), '');
    expect(scanner.scan().map((file) => file.path)).toEqual([join(root, 'sub', '.envrc')]);
  });

  // As root every folder can be listed: the case needs another user (setpriv, util-linux).
  const asNobody = process.getuid?.() === 0 && findProgram('setpriv', process.env.PATH) !== undefined;
  it.skipIf(!asNobody)('finds a .git in a folder made searchable but not readable (chmod 100: cd and git work there, ls does not)', async () => {
    await mkdir(join(root, 'sub'));
    await writeFile(join(root, 'sub', '.git'), 'gitdir: ../evil\n');
    await chmod(join(root, 'sub'), 0o100);
    for (const path of [root, join(root, 'sub'), join(root, 'sub', '.git')]) await chown(path, 65534, 65534);
    await chmod(root, 0o755);
    const built = fileURLToPath(new URL('../../dist/sandbox/tool-files.js', import.meta.url));
    const script = `import(${JSON.stringify(built)}).then((m) => console.log(JSON.stringify(new m.ToolFileScanner(${JSON.stringify(root)}).scan())))`;
    const out = execFileSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual([{ path: join(root, 'sub', '.git'), dangling: false }]);
  });
});
