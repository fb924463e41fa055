import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A module-resolution hook that fails any import of vitest, naming the importer. Loaded into
 * a fresh Node process (after tsx, so it sees every specifier first), it proves what a
 * module graph does not contain — which no import inside this vitest process could.
 */
const FORBID_VITEST = `
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'vitest' || specifier.startsWith('vitest/') || specifier.startsWith('@vitest/')) {
    throw new Error('vitest imported by ' + context.parentURL);
  }
  return nextResolve(specifier, context);
}
`;

describe('@panto/core testing entry points', () => {
  let dir: string;
  let register: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'panto-entry-'));
    const hooks = join(dir, 'forbid-vitest.mjs');
    register = join(dir, 'register.mjs');
    await writeFile(hooks, FORBID_VITEST);
    await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Imports `specifier` in a new Node process that refuses to load vitest; resolves with its output. */
  function importWithoutVitest(specifier: string): Promise<{ ok: boolean; output: string }> {
    const script = `const module = await import(${JSON.stringify(specifier)}); console.log('exports: ' + Object.keys(module).sort().join(' '));`;
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--conditions=@panto/source', '--import', 'tsx', '--import', pathToFileURL(register).href, '--input-type=module', '-e', script],
        { cwd: process.cwd(), env, timeout: 30_000 },
        (error, stdout, stderr) => resolve({ ok: error === null, output: `${stdout}${stderr}` }),
      );
    });
  }

  it('loads @panto/core/testing, the fakes, without vitest anywhere in its module graph', async () => {
    const result = await importWithoutVitest('@panto/core/testing');
    expect(result.output).toContain(
      'exports: BEDROCK_STREAM_HEADERS CapturingStore FAKE_BEDROCK_CREDENTIALS FakeBedrockServer FakeLLMServer ManualClock RecordFactory ScriptedProvider encodeEventStream everyKindOfMessage usage waitUntil',
    );
    expect(result.ok).toBe(true);
  });

  it('needs vitest for @panto/core/testing/conformance, so the check above can fail', async () => {
    const result = await importWithoutVitest('@panto/core/testing/conformance');
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/vitest imported by file:\/\/\S+\/packages\/core\/src\/testing\/conformance\/\S+\.ts/);
  });
});
