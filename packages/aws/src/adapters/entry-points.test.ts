import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A module-resolution hook that fails any import of an agent SDK, naming the importer. Loaded
 * into a fresh Node process, it proves what a module graph does not contain: @panto/aws's main
 * entries (and so the Lambda bundles, which import only those) never load an adapter's SDK.
 */
const FORBID_SDKS = `
const SDKS = ['@langchain/', '@openai/', '@anthropic-ai/claude-agent-sdk'];
export async function resolve(specifier, context, nextResolve) {
  if (SDKS.some((sdk) => specifier.startsWith(sdk))) throw new Error('agent SDK ' + specifier + ' imported by ' + context.parentURL);
  return nextResolve(specifier, context);
}
`;

describe('@panto/aws entry points and the agent SDKs', () => {
  let dir: string;
  let register: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'panto-aws-entry-'));
    const hooks = join(dir, 'forbid-sdks.mjs');
    register = join(dir, 'register.mjs');
    await writeFile(hooks, FORBID_SDKS);
    await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Imports `specifier` in a new Node process that refuses to load any agent SDK. */
  function importWithoutSDKs(specifier: string): Promise<{ ok: boolean; output: string }> {
    const script = `const module = await import(${JSON.stringify(specifier)}); console.log('exports: ' + Object.keys(module).sort().join(' '));`;
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--conditions=@panto/source', '--import', 'tsx', '--import', pathToFileURL(register).href, '--input-type=module', '-e', script],
        { cwd: process.cwd(), env, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ ok: error === null, output: `${stdout}${stderr}` }),
      );
    });
  }

  it.each(['@panto/aws', '@panto/aws/service', '@panto/aws/transfer'])('loads %s without any agent SDK in its module graph', async (specifier) => {
    const result = await importWithoutSDKs(specifier);
    expect(result.output).toContain('exports: ');
    expect(result.output).not.toContain('DynamoSessionStore');
    expect(result.ok).toBe(true);
  });

  it('loads the Claude Agent SDK and OpenAI Agents adapters without their SDKs: they use only the SDKs’ types', async () => {
    expect((await importWithoutSDKs('@panto/aws/claude-agent-sdk')).output).toContain('exports: DynamoSessionStore');
    const openai = await importWithoutSDKs('@panto/aws/openai-agents');
    expect(openai.output).toContain('DynamoSession');
    expect(openai.ok).toBe(true);
  });

  it('needs @langchain/langgraph-checkpoint for the LangGraph adapter, so the checks above can fail', async () => {
    const result = await importWithoutSDKs('@panto/aws/langgraph');
    expect(result.ok).toBe(false);
    expect(result.output).toContain('agent SDK @langchain/langgraph-checkpoint imported by');
  });
});
