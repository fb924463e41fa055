/**
 * The CLI as an extension host, in process: where extensions are found, how a broken one
 * is reported, their tools, commands, hooks and UI, /help and /extensions. (The built
 * CLI with the example extensions and MCP servers: test/cli-extensions.test.ts.)
 */
import { decodeSession } from '@panto/core/store-kit';
import { ScriptedProvider, type ScriptedReply } from '@panto/core/testing';
import { describeExtensionHostConformance } from '@panto/core/testing/conformance';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from './run-cli.js';
import type { ProviderFactory } from '../agent/provider-choice.js';
import { sessionDirFor } from '../session/session-dir.js';
import { CapturedOutput, pipedStdin } from '../../../../test/support/streams.js';
import { tempDir } from '../../../../test/support/temp-dir.js';

let root: string;
let cwd: string;
let home: string;
let cleanup: () => Promise<void>;
let providers: ScriptedProvider[];

beforeEach(async () => {
  const dir = await tempDir();
  ({ path: root, cleanup } = dir);
  cwd = join(root, 'project');
  home = join(root, 'panto-home');
  await mkdir(cwd);
  providers = [];
});
afterEach(async () => cleanup());

async function cli(argv: string[], options: { replies?: ScriptedReply[]; stdin?: string[]; env?: Record<string, string> } = {}) {
  const stdout = new CapturedOutput();
  const stderr = new CapturedOutput();
  const replies = [...(options.replies ?? [])];
  const factory: ProviderFactory = (settings) => {
    const provider = new ScriptedProvider(replies.splice(0), { name: settings.provider, model: settings.model ?? 'm' });
    providers.push(provider);
    return provider;
  };
  const code = await run({
    // The folder's own extensions are what these tests load: trusted (test/cli-trust.test.ts is about trust).
    argv: ['--trust', ...argv],
    env: { PANTO_HOME: home, PANTO_PROVIDER: 'openai', ...options.env },
    cwd,
    stdin: pipedStdin(options.stdin ?? []),
    stdout,
    stderr,
    providerFactory: factory,
    onInterrupt: () => () => {},
    forceExit: () => {
      throw new Error('forceExit called');
    },
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

async function put(path: string, text: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

const GREETER_TS = `
import type { Extension } from '@panto/core';
const greeter: Extension = (panto) => {
  panto.registerTool({
    name: 'greet',
    description: 'Greets someone',
    input_schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    execute: async (input) => \`Hello, \${String(input.name)}!\`,
  });
  panto.registerCommand('entries', {
    description: 'count the session entries',
    handler: async (args, context) => {
      const entries = await context.session.entries();
      const kinds = entries.map((entry) => (entry.type === 'message' ? entry.message.role : entry.type));
      context.ui.print(\`\${args || 'entries'}: \${entries.length} (\${kinds.join(' ')}) in \${context.session.id}\`);
    },
  });
};
export default greeter;
`;

describe('extensions in the CLI', () => {
  it("loads a .ts extension from .panto/extensions: the model calls its tool, its command runs from the REPL and reads the session's entries", async () => {
    await put(join(cwd, '.panto/extensions/greeter.ts'), GREETER_TS);
    const result = await cli([], {
      replies: [{ toolCalls: [{ id: 'c1', name: 'greet', input: { name: 'Ada' } }] }, { text: 'Greeted.' }],
      stdin: ['greet Ada', '/entries now', '/help', '/extensions'],
    });
    expect(result.stderr).not.toContain('failed');
    expect(result.code).toBe(0);
    expect(providers[0]!.requests[0]!.tools.map((tool) => tool.name)).toEqual(['read', 'write', 'edit', 'bash', 'greet']);
    expect(JSON.stringify(providers[0]!.requests[1]!.messages)).toContain('Hello, Ada!');
    expect(result.stdout).toMatch(/now: 5 \(system user assistant tool_result assistant\) in [0-9a-f-]{36}/);
    expect(result.stdout).toMatch(/Extension commands:\n {2}\/entries +count the session entries \(\.panto\/extensions\/greeter\.ts\)/);
    expect(result.stdout).toContain('✓ .panto/extensions/greeter.ts  (.panto/extensions)\n    tools     greet\n    commands  /entries');
  });

  it('loads .mjs and CommonJS .js files from $PANTO_HOME/extensions, then --extension files, in that order', async () => {
    await put(
      join(home, 'extensions/b-esm.mjs'),
      `export default (panto) => panto.registerCommand('esm', { description: 'from .mjs', handler: (_a, c) => c.ui.print('esm ran') });`,
    );
    await put(
      join(home, 'extensions/a-cjs.js'),
      `module.exports = (panto) => panto.registerCommand('cjs', { description: 'from .js', handler: (_a, c) => c.ui.print('cjs ran') });`,
    );
    await put(join(home, 'extensions/notes.txt'), 'not an extension');
    await put(
      join(root, 'elsewhere/flagged/index.ts'),
      `export default (panto: { registerCommand: Function }) => panto.registerCommand('flagged', { description: 'from --extension', handler: (_a: string, c: { ui: { print(t: string): void } }) => c.ui.print('flagged ran') });`,
    );
    const result = await cli(['--extension', '../elsewhere/flagged'], {
      stdin: ['/cjs', '/esm', '/flagged', '/extensions'],
    });
    expect(result.stderr).not.toContain('failed');
    expect(result.stdout).toContain('cjs ran\nesm ran\nflagged ran\n');
    const listed = result.stdout.split('\n').filter((line) => line.startsWith('✓'));
    // Paths outside the working folder are shown whole.
    expect(listed).toEqual([
      `✓ ${home}/extensions/a-cjs.js  (${home}/extensions)`,
      `✓ ${home}/extensions/b-esm.mjs  (${home}/extensions)`,
      `✓ ${root}/elsewhere/flagged/index.ts  (--extension)`,
    ]);
  });

  it('reports a broken extension with its file and error, and still starts with the others', async () => {
    await put(join(cwd, '.panto/extensions/broken.ts'), 'export default function (panto: any { return 1 }');
    await put(join(cwd, '.panto/extensions/broken.mjs'), 'export default function ( { return 1 }');
    await put(join(cwd, '.panto/extensions/throws.mjs'), `export default () => { throw new Error('needs GREETING_API_KEY'); };`);
    await put(join(cwd, '.panto/extensions/greeter.ts'), GREETER_TS);
    const result = await cli(['--extension', 'missing.ts', '-p', 'hi'], { replies: [{ text: 'still here' }] });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('still here\n');
    expect(result.stderr).toMatch(
      /panto: extension \.panto\/extensions\/broken\.ts failed to load: could not be imported: .*broken\.ts:1:\d+: ERROR: Expected "\)" but found "\{"/,
    );
    expect(result.stderr).toMatch(
      /panto: extension \.panto\/extensions\/broken\.mjs failed to load: could not be imported: Unexpected number \(at \/.*broken\.mjs:1\)/,
    );
    expect(result.stderr).toContain('panto: extension .panto/extensions/throws.mjs failed to load: needs GREETING_API_KEY');
    expect(result.stderr).toContain('panto: extension missing.ts failed to load: no such extension file or folder (with an index.ts, .js or .mjs): missing.ts');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(providers[0]!.requests[0]!.tools.map((tool) => tool.name)).toContain('greet');
  });

  it('lists failures in /extensions, says where it looked when there are none, and reports a failing command', async () => {
    const none = await cli([], { stdin: ['/extensions'] });
    expect(none.stdout).toContain(`no extensions loaded (looked in ${home}/extensions and .panto/extensions; --extension <path> loads one)`);

    await put(join(cwd, '.panto/extensions/nodefault.mjs'), 'export const x = 1;');
    await put(
      join(cwd, '.panto/extensions/boom.mjs'),
      `export default (panto) => panto.registerCommand('boom', { description: 'fails', handler: () => { throw new Error('kaboom'); } });`,
    );
    const result = await cli([], { stdin: ['/extensions', '/boom', '/session'] });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('✗ .panto/extensions/nodefault.mjs  (.panto/extensions)\n    failed to load: its default export is not a function');
    expect(result.stderr).toContain('/boom failed (.panto/extensions/boom.mjs): kaboom');
    expect(result.stdout).toContain('session   ');
  });

  it('refuses a bash call through a before-tool-call hook, reports a throwing event handler, and keeps the session whole', async () => {
    await put(
      join(cwd, '.panto/extensions/guard.mjs'),
      `export default (panto) => {
        panto.on('before-tool-call', (call) => call.name === 'bash' && call.input.command.includes('rm') ? { type: 'refuse', reason: 'no rm here' } : undefined);
        panto.on('step-end', () => { throw new Error('observer broke'); });
      };`,
    );
    const result = await cli(['-p', 'clean up'], {
      replies: [{ toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'rm -rf build' } }] }, { text: 'I will not.' }],
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('I will not.\n');
    expect(result.stderr).toContain('✗ bash $ rm -rf build · 29 B · Tool call refused: no rm here');
    expect(result.stderr).toContain("panto: extension .panto/extensions/guard.mjs: on('step-end') failed: observer broke");
    const sent = JSON.stringify(providers[0]!.requests[1]!.messages);
    expect(sent).toContain('Tool call refused: no rm here');
  });

  it('answers questions with their defaults when nobody can answer (piped input), and runs turns for commands', async () => {
    await put(
      join(cwd, '.panto/extensions/asker.mjs'),
      `export default (panto) => panto.registerCommand('ask', {
        description: 'asks',
        handler: async (_args, context) => {
          const sure = await context.ui.confirm('Really?', { default: true });
          const name = await context.ui.ask('Name?', { default: 'nobody' });
          context.ui.notify('asked', 'warning');
          const step = await context.agent.runTurn('say ' + name);
          context.ui.print(sure + ' ' + name + ' ' + step.stopReason);
        },
      });`,
    );
    const result = await cli([], { replies: [{ text: 'nobody it is' }, { text: 'ok' }], stdin: ['/ask', 'next'] });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('nobody it is\ntrue nobody end_turn\n');
    expect(result.stderr).toContain('asked');
    // The REPL's next line was not eaten by the question.
    expect(providers[0]!.requests.map((request) => request.messages.at(-1))).toMatchObject([
      { role: 'user', content: 'say nobody' },
      { role: 'user', content: 'next' },
    ]);
  });
});

describeExtensionHostConformance('the panto CLI (extensions in .panto/extensions, lines piped in)', {
  async run(setup) {
    for (const [name, source] of Object.entries(setup.extensions)) await put(join(cwd, '.panto/extensions', name), source);
    const result = await cli([], { replies: setup.replies, stdin: setup.inputs });
    const dir = sessionDirFor(cwd, { PANTO_HOME: home });
    const files = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith('.jsonl'));
    const entries = files.length === 0 ? [] : decodeSession(await readFile(join(dir, files[0]!)), files[0]!).entries;
    return {
      entries,
      printed: result.stdout,
      reported: result.stderr,
      offeredTools: providers[0]?.requests[0]?.tools.map((tool) => tool.name) ?? [],
    };
  },
});
