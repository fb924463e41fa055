/**
 * The built `panto` CLI with what users bring: the example extensions copied into
 * `.panto/extensions/` (the fake model calls their tool, their command runs from the REPL,
 * their hook refuses a bash command), a broken extension file, and MCP servers from
 * `.panto/mcp.json` — the real "everything" server over stdio, whose echo and get-sum
 * tools the fake model calls, next to a server that cannot start.
 */
import type { SessionEntry } from '@panto/core';
import { decodeSession } from '@panto/core/store-kit';
import type { RecordedRequest } from '@panto/core/testing';
import { cp, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sessionDirFor } from '@panto/cli';
import { fakeServerSandbox, jsonlFiles, requestBody, runPanto } from './cli-harness.js';
import { everythingStdio } from './mcp-harness.js';

const EXAMPLES = resolve(dirname(fileURLToPath(import.meta.url)), '../examples/extensions');

const e2e = fakeServerSandbox();

function toolNames(request: RecordedRequest | undefined): string[] {
  return ((request?.body as { tools?: { function: { name: string } }[] } | undefined)?.tools ?? []).map((tool) => tool.function.name);
}

async function sessionEntries(): Promise<SessionEntry[]> {
  const [file] = await jsonlFiles(sessionDirFor(e2e.box.cwd, { PANTO_HOME: e2e.box.home }));
  return decodeSession(await readFile(file!), file!).entries;
}

describe('panto with extensions', { timeout: 90_000 }, () => {
  it('runs the example extensions from .panto/extensions: the model calls word_count, /stats reads the entries, bash-guard refuses rm -rf', async () => {
    const extensions = join(e2e.box.cwd, '.panto/extensions');
    await mkdir(extensions, { recursive: true });
    for (const name of ['word-count.ts', 'session-stats.ts', 'bash-guard.ts']) await cp(join(EXAMPLES, name), join(extensions, name));
    await mkdir(join(e2e.box.cwd, 'build'));
    e2e.server.enqueue(
      { text: 'Counting.', toolCalls: [{ id: 'call_1', name: 'word_count', input: { text: 'one two three' } }] },
      { text: 'Three words.' },
      { text: 'Cleaning.', toolCalls: [{ id: 'call_2', name: 'bash', input: { command: 'rm -rf build' } }] },
      { text: 'I was not allowed to.' },
    );
    const { args: openai, env } = e2e.openai();
    // The folder's own extensions (trust: test/cli-trust.test.ts).
    const args = [...openai, '--trust'];
    const input = ['how many words in "one two three"?', 'remove the build folder', '/stats', '/help', '/extensions', ''].join('\n');
    const result = await runPanto(args, { cwd: e2e.box.cwd, env, stdin: input });
    expect(result.stderr).not.toContain('failed');
    expect(result.code).toBe(0);

    // The tool: offered, called, its result went back to the model.
    expect(toolNames(e2e.server.requests[0])).toEqual(['read', 'write', 'edit', 'bash', 'word_count']);
    expect(result.stderr).toContain('✓ word_count {"text":"one two three"}');
    expect(requestBody(e2e.server.requests[1])).toContain('1 lines, 3 words, 13 characters');

    // The hook: the command never ran, and the model was told why.
    expect((await stat(join(e2e.box.cwd, 'build'))).isDirectory()).toBe(true);
    expect(result.stderr).toContain('bash-guard: refused "rm -rf build"');
    expect(result.stderr).toMatch(/✗ bash \$ rm -rf build · \d+ B · Tool call refused: this command matches the deny pattern/);
    expect(requestBody(e2e.server.requests[3])).toContain('Tool call refused: this command matches the deny pattern');

    // The command: it read the session's entries as stored.
    const log = await sessionEntries();
    expect(log.map((entry) => (entry.type === 'message' ? entry.message.role : entry.type))).toEqual([
      'system',
      'user',
      'assistant',
      'tool_result',
      'assistant',
      'user',
      'assistant',
      'tool_result',
      'assistant',
    ]);
    expect(result.stdout).toContain('entries  9: 1 system, 2 user, 4 assistant, 2 tool_result\ntools    1 word_count, 1 bash\n');
    expect(result.stdout).toMatch(/\/stats +what this session holds: .* \(\.panto\/extensions\/session-stats\.ts\)/);
    expect(result.stdout).toContain('✓ .panto/extensions/bash-guard.ts  (.panto/extensions)\n    events    before-tool-call');
  });

  it('reports a broken extension file with its file and error, and starts anyway', async () => {
    await mkdir(join(e2e.box.cwd, '.panto/extensions'), { recursive: true });
    await writeFile(join(e2e.box.cwd, '.panto/extensions/broken.ts'), 'export default (panto: any => {};\n');
    await cp(join(EXAMPLES, 'word-count.ts'), join(e2e.box.cwd, '.panto/extensions/word-count.ts'));
    e2e.server.enqueue({ text: 'Still working.' });
    const { args, env } = e2e.openai();
    const result = await runPanto([...args, '--trust', '-p', 'hello'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Still working.\n');
    expect(result.stderr).toMatch(/^panto: extension \.panto\/extensions\/broken\.ts failed to load: could not be imported: .*broken\.ts:1:\d+: ERROR: .+$/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(toolNames(e2e.server.requests[0])).toContain('word_count');
  });
});

describe('panto with MCP servers', { timeout: 90_000 }, () => {
  it("calls the everything server's echo and get-sum tools over stdio, and reports a server that cannot start", async () => {
    await mkdir(join(e2e.box.cwd, '.panto'), { recursive: true });
    await writeFile(
      join(e2e.box.cwd, '.panto/mcp.json'),
      JSON.stringify({
        mcpServers: {
          everything: everythingStdio(),
          broken: { command: process.execPath, args: ['-e', 'console.error("missing DATABASE_URL"); process.exit(1)'] },
        },
      }),
    );
    e2e.server.enqueue(
      {
        text: 'Using the MCP tools.',
        toolCalls: [
          { id: 'call_1', name: 'mcp__everything__echo', input: { message: 'hello from panto' } },
          { id: 'call_2', name: 'mcp__everything__get-sum', input: { a: 19, b: 23 } },
        ],
      },
      { text: 'Echoed, and 19 + 23 = 42.' },
    );
    const { args, env } = e2e.openai();
    const result = await runPanto([...args, '--trust'], { cwd: e2e.box.cwd, env, stdin: ['echo and add, please', '/mcp', ''].join('\n') });
    expect(result.stderr).not.toContain('    at ');
    expect(result.code).toBe(0);

    expect(toolNames(e2e.server.requests[0])).toEqual(expect.arrayContaining(['bash', 'mcp__everything__echo', 'mcp__everything__get-sum']));
    expect(requestBody(e2e.server.requests[1])).toContain('Echo: hello from panto');
    expect(requestBody(e2e.server.requests[1])).toContain('The sum of 19 and 23 is 42.');
    expect(result.stderr).toContain('✓ mcp__everything__echo {"message":"hello from panto"}');
    expect(result.stdout).toContain('Echoed, and 19 + 23 = 42.');

    // The failed server: a warning with its last words, a line in /mcp, and no crash.
    expect(result.stderr).toContain('panto: MCP server "broken" could not start: the server exited (its last words: missing DATABASE_URL)');
    expect(result.stdout).toMatch(
      /✓ everything {2}connected · stdio .*server-everything\/dist\/index\.js stdio {2}\(\.panto\/mcp\.json\)\n {4}tools {2}mcp__everything__echo, /,
    );
    expect(result.stdout).toMatch(/✗ broken {2}failed · stdio .*\n {4}could not start: the server exited \(its last words: missing DATABASE_URL\)/);

    const results = (await sessionEntries()).flatMap((entry) => (entry.type === 'message' && entry.message.role === 'tool_result' ? [entry.message] : []));
    expect(results.map((message) => [message.tool_name, message.content, message.is_error])).toEqual([
      ['mcp__everything__echo', 'Echo: hello from panto', false],
      ['mcp__everything__get-sum', 'The sum of 19 and 23 is 42.', false],
    ]);
  });

  it("/mcp lists a connected server's tools before the first turn", async () => {
    await mkdir(e2e.box.home, { recursive: true });
    await writeFile(join(e2e.box.home, 'mcp.json'), JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
    const { args, env } = e2e.openai();
    const result = await runPanto(args, { cwd: e2e.box.cwd, env, stdin: '/mcp\n' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/✓ everything {2}connected · stdio .*\n {4}tools {2}mcp__everything__echo, /);
    expect(e2e.server.requests).toHaveLength(0);
  });

  it('reads $PANTO_HOME/mcp.json, and reports a config that is not JSON without stopping', async () => {
    await mkdir(e2e.box.home, { recursive: true });
    await writeFile(join(e2e.box.home, 'mcp.json'), JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
    await mkdir(join(e2e.box.cwd, '.panto'), { recursive: true });
    await writeFile(join(e2e.box.cwd, '.panto/mcp.json'), '{ "mcpServers": ');
    e2e.server.enqueue({ toolCalls: [{ id: 'call_1', name: 'mcp__everything__echo', input: { message: 'global' } }] }, { text: 'done' });
    const { args, env } = e2e.openai();
    const result = await runPanto([...args, '--trust', '-p', 'echo global'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/panto: \.panto\/mcp\.json: not JSON: /);
    expect(requestBody(e2e.server.requests[1])).toContain('Echo: global');
  });
});
