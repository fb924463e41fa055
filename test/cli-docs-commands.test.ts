/**
 * Commands docs/cli.md tells you to paste do what they say: the one that copies the example
 * extensions into `.panto/extensions/` copies the examples and not their test file (which,
 * loaded as an extension, would fail).
 */
import { execFileSync } from 'node:child_process';
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { tempDir } from './support/temp-dir.js';

const repo = fileURLToPath(new URL('..', import.meta.url));

it("docs/cli.md's command that copies examples/extensions copies the examples, not the test", async () => {
  const docs = await readFile(join(repo, 'docs/cli.md'), 'utf8');
  const line = docs.split('\n').find((text) => text.startsWith('mkdir -p .panto/extensions &&'));
  expect(line).toBeDefined();
  const { path, cleanup } = await tempDir('panto-docs-');
  try {
    await cp(join(repo, 'examples/extensions'), join(path, 'examples/extensions'), { recursive: true });
    execFileSync('sh', ['-c', line!.replace(/\s+#.*$/, '')], { cwd: path });
    const examples = (await readdir(join(repo, 'examples/extensions'))).filter((name) => !name.endsWith('.test.ts')).sort();
    expect((await readdir(join(path, '.panto/extensions'))).sort()).toEqual(examples);
  } finally {
    await cleanup();
  }
});
