/**
 * Attacks on folder trust with the built `panto`, as a hostile repository or a command inside it
 * would make them: a sandboxed command rewrites the file a trusted folder's MCP server runs; a
 * folder reached through a link that now points elsewhere; `AGENTS.md` as a link to
 * `/proc/self/environ`, to `~/.ssh/id_rsa` or out of the repository; a server name with control
 * characters that would rewrite the terminal line.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeServerSandbox, requestBody, runPanto, until } from '../cli-harness.js';

const e2e = fakeServerSandbox({ outsideTemp: true });
const KEY = 'sk-adversarial-provider-key-5d1e';

/** A folder whose MCP server is `node tools/mcp.mjs`, which leaves `marker` saying what ran. */
async function projectWithServer(cwd: string): Promise<void> {
  await mkdir(join(cwd, '.panto'), { recursive: true });
  await mkdir(join(cwd, 'tools'));
  await writeFile(join(cwd, 'tools', 'mcp.mjs'), `import { writeFileSync } from 'node:fs';\nwriteFileSync('marker', 'the trusted server');\n`);
  await writeFile(join(cwd, '.panto', 'mcp.json'), JSON.stringify({ mcpServers: { tools: { command: process.execPath, args: ['tools/mcp.mjs'] } } }));
}

function openai() {
  const { args, env } = e2e.openai();
  return { args, env: { ...env, OPENAI_API_KEY: KEY } };
}

describe('code a trusted folder runs outside the sandbox', { timeout: 90_000 }, () => {
  it('asks again (and -p skips it) once a sandboxed command rewrote the file its MCP server runs', async () => {
    const { cwd } = e2e.box;
    await projectWithServer(cwd);
    const { args, env } = openai();
    expect((await runPanto(args, { cwd, env, stdin: '/trust yes\n' })).code).toBe(0);

    // A prompt-injected turn: the model rewrites the server with bash, inside the sandbox.
    const payload = `import { writeFileSync } from 'node:fs';\\nwriteFileSync('marker', 'the payload');\\n`;
    e2e.server.enqueue({ toolCalls: [{ id: 'rewrite', name: 'bash', input: { command: `printf "${payload}" > tools/mcp.mjs` } }] }, { text: 'Done.' });
    const turn = await runPanto([...args, '-p', 'tidy the tools'], { cwd, env });
    expect(turn.code).toBe(0);
    await until('the trusted server to have run', () => existsSync(join(cwd, 'marker')));
    expect(await readFile(join(cwd, 'tools', 'mcp.mjs'), 'utf8')).toContain('the payload');
    await rm(join(cwd, 'marker'));

    e2e.server.enqueue({ text: 'Hi.' });
    const next = await runPanto([...args, '-p', 'hello'], { cwd, env });
    expect(next.stderr).toContain("skipped this folder's own code");
    expect(next.stderr).toContain('tools/mcp.mjs changed since you trusted the folder');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(existsSync(join(cwd, 'marker'))).toBe(false);
  });

  it('a folder reached through a link runs as the folder it is (trust is the real path’s); the link pointed elsewhere is asked about', async () => {
    const { cwd, root } = e2e.box;
    await projectWithServer(cwd);
    const { args, env } = openai();
    expect((await runPanto(args, { cwd, env, stdin: '/trust yes\n' })).code).toBe(0);
    const link = join(root, 'link');
    await symlink(cwd, link);
    e2e.server.enqueue({ text: 'Hi.' }, { text: 'Hi.' });
    const through = await runPanto([...args, '-p', 'hello'], { cwd: link, env });
    expect(through.stderr).not.toContain('skipped');
    await until('the server to run through the link', () => existsSync(join(cwd, 'marker')));

    const copy = join(root, 'copy');
    await cp(cwd, copy, { recursive: true });
    await rm(join(copy, 'marker'));
    await rm(link);
    await symlink(copy, link);
    const elsewhere = await runPanto([...args, '-p', 'hello'], { cwd: link, env });
    expect(elsewhere.stderr).toContain('(this folder is not trusted)');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(existsSync(join(copy, 'marker'))).toBe(false);
  });

  it('writes a server name’s control characters as escapes in the -p note', async () => {
    const { cwd } = e2e.box;
    await mkdir(join(cwd, '.panto'));
    await writeFile(join(cwd, '.panto', 'mcp.json'), JSON.stringify({ mcpServers: { 'lint\u001b[2K\rall good': { command: 'true' } } }));
    e2e.server.enqueue({ text: 'Hi.' });
    const { args, env } = openai();
    const result = await runPanto([...args, '-p', 'hello'], { cwd, env });
    expect(result.stderr).toContain('lint\\e[2K\\rall good');
    expect(result.stderr).not.toMatch(/\u001b\[2K/);
  });
});

describe('AGENTS.md that is a link', { timeout: 90_000 }, () => {
  it('to /proc/self/environ, ~/.ssh/id_rsa or out of the repository is not sent to the provider', async () => {
    const { cwd, root } = e2e.box;
    await mkdir(join(cwd, '.git'));
    await mkdir(join(root, '.ssh'));
    await writeFile(join(root, '.ssh', 'id_rsa'), 'FAKE-PRIVATE-KEY-3a9c\n');
    await mkdir(join(root, 'elsewhere'));
    await writeFile(join(root, 'elsewhere', 'credentials'), 'aws_secret_access_key = FAKE-AWS-77b2\n');
    await mkdir(join(cwd, 'pkg'));
    await symlink('/proc/self/environ', join(cwd, 'AGENTS.md'));
    await symlink('../../.ssh/id_rsa', join(cwd, 'pkg', 'AGENTS.md'));
    await mkdir(join(cwd, 'pkg', 'sub'));
    await symlink('../../../elsewhere/credentials', join(cwd, 'pkg', 'sub', 'AGENTS.md'));
    await writeFile(join(cwd, 'pkg', 'sub', 'README'), 'ok');
    e2e.server.enqueue({ text: 'Hi.' }, { text: 'Hi.' });
    const { args, env } = openai();
    for (const folder of [cwd, join(cwd, 'pkg', 'sub')]) {
      const result = await runPanto([...args, '-p', 'hello'], { cwd: folder, env });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('AGENTS.md is a link to');
    }
    const sent = e2e.server.requests.map((request) => requestBody(request)).join('\n');
    for (const secret of [KEY, 'FAKE-PRIVATE-KEY-3a9c', 'FAKE-AWS-77b2']) expect(sent).not.toContain(secret);
  });

  it('nor does the read tool send panto’s own /proc/self/environ without asking (-p refuses it)', async () => {
    const { cwd } = e2e.box;
    await symlink('/proc/self/environ', join(cwd, 'notes.txt'));
    e2e.server.enqueue(
      {
        toolCalls: [
          { id: 'direct', name: 'read', input: { path: '/proc/self/environ' } },
          { id: 'linked', name: 'read', input: { path: 'notes.txt' } },
        ],
      },
      { text: 'Done.' },
    );
    const { args, env } = openai();
    const result = await runPanto([...args, '-p', 'read them'], { cwd, env });
    expect(result.code).toBe(0);
    const sent = e2e.server.requests.map((request) => requestBody(request)).join('\n');
    expect(sent).toContain('Tool call refused');
    expect(sent).not.toContain(KEY);
  });
});
