/**
 * The Node versions the repository says it runs on: every workspace declares the same
 * `engines.node`, the README and the docs name it, and it is one that the tools the build
 * and the tests need (vite, rolldown, vitest) accept — a Node that satisfies ours but not
 * theirs would install with EBADENGINE warnings and fail in `npm test`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const root = new URL('../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');
const manifest = (path: string) => JSON.parse(read(path)) as { engines?: { node?: string }; workspaces?: string[] };

type Version = [number, number, number];
const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text
    .replace(/^[^\d]*/, '')
    .split('.')
    .map(Number);
  return [major, minor, patch];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` satisfies a range made of `^x.y.z`, `>=x.y.z` alternatives joined by `||`. */
function satisfies(version: Version, range: string): boolean {
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .every((part) => {
        if (part.startsWith('>=')) return compare(version, parse(part)) >= 0;
        if (part.startsWith('^')) return version[0] === parse(part)[0] && compare(version, parse(part)) >= 0;
        throw new Error(`range part not understood: ${part}`);
      }),
  );
}

const rootManifest = manifest('package.json');
const declared = rootManifest.engines?.node ?? '';
const lowest = parse(declared);

describe('engines.node', () => {
  it('is the same ">=x.y" in the root and every workspace', () => {
    expect(declared).toMatch(/^>=\d+\.\d+$/);
    for (const workspace of rootManifest.workspaces ?? []) expect(manifest(`${workspace}/package.json`).engines?.node, workspace).toBe(declared);
  });

  it('is accepted by the build and test tools (vite, rolldown, vitest)', () => {
    const require = createRequire(new URL('package.json', root));
    for (const tool of ['vite', 'rolldown', 'vitest']) {
      const range = (require(`${tool}/package.json`) as { engines?: { node?: string } }).engines?.node;
      if (range !== undefined) expect(satisfies(lowest, range), `${tool} needs Node ${range}; panto says ${declared}`).toBe(true);
    }
  });

  it('is the version the README and the docs name', () => {
    const [major, minor] = lowest;
    expect(read('README.md')).toContain(`Node ${major}.${minor} or newer`);
    expect(read('docs/cli.md')).toContain(`Node ≥ ${major}.${minor}`);
    expect(read('docs/deploy.md')).toContain(`Node.js ${major}.${minor} or newer`);
  });
});
