/**
 * Prompt ids as a `-p` user meets them (issue 37, item 9), through the built CLI against the
 * fake LLM server: `panto --list` gives the session's short id, `panto -r <it> --list` its
 * prompts' short ids, and one of those, given to `--rewind`, restores the files.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeServerSandbox, runPanto } from './cli-harness.js';

const e2e = fakeServerSandbox();

/** One `-p` turn whose model writes `path` with the write tool; its result object. */
async function writeTurn(extra: string[], prompt: string, path: string, content: string): Promise<{ session_id: string; prompt_id: string }> {
  e2e.server.enqueue({ toolCalls: [{ name: 'write', input: { path, content } }] }, { text: `wrote ${path}` });
  const { args, env } = e2e.openai();
  const run = await runPanto([...args, ...extra, '--yolo', '-p', prompt, '--output-format', 'json'], { cwd: e2e.box.cwd, env });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { session_id: string; prompt_id: string };
}

async function panto(argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { args, env } = e2e.openai();
  return await runPanto([...args, ...argv], { cwd: e2e.box.cwd, env });
}

/** The rows of a listing (its header left out), as their columns: the first word, and the rest. */
function rows(stdout: string): { id: string; line: string }[] {
  return stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((line) => ({ id: line.split(/\s+/)[0]!, line }));
}

describe('short prompt ids, listed without the interactive /rewind', { timeout: 90_000 }, () => {
  it('a prompt id taken from `panto -r <session> --list` rewinds the files to before that prompt', async () => {
    const first = await writeTurn([], 'write a', 'a.txt', 'one\n');
    const second = await writeTurn(['-c'], 'write b', 'b.txt', 'two\n');
    expect(second.session_id).toBe(first.session_id);

    const sessions = await panto(['--list']);
    const [session] = rows(sessions.stdout);
    expect(first.session_id.endsWith(session!.id)).toBe(true);

    const listed = await panto(['-r', session!.id, '--list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')[0]).toMatch(/^ID\s+TIME\s+FILES\s+PROMPT$/);
    const prompts = rows(listed.stdout);
    // Newest first; each a short id: the end of the prompt's id, 8 characters here.
    expect(prompts.map((row) => row.line)).toEqual([expect.stringMatching(/saved {2}write b$/), expect.stringMatching(/saved {2}write a$/)]);
    expect(prompts.map((row) => row.id)).toEqual([second.prompt_id.slice(-8), first.prompt_id.slice(-8)]);
    expect(listed.stderr).toContain(`to go back to before one: panto -r ${session!.id} --rewind <ID>`);

    const rewound = await panto(['-r', session!.id, '--rewind', prompts[0]!.id]);
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(rewound.stderr).toContain('files removed (created since): b.txt');
    expect(rewound.stderr).toContain(`rewound to before prompt ${prompts[0]!.id}: write b`);
    expect((await readdir(e2e.box.cwd)).sort()).toEqual(['a.txt']);
    expect(await readFile(join(e2e.box.cwd, 'a.txt'), 'utf8')).toBe('one\n');

    // What worked before still works: the whole id, and -c for the session.
    const whole = await panto(['-c', '--rewind', first.prompt_id]);
    expect(whole.code, whole.stderr).toBe(0);
    expect(await readdir(e2e.box.cwd)).toEqual([]);
  });

  it('-c --list lists the latest session; a prompt id it does not hold says where the ids are listed, and changes nothing', async () => {
    await writeTurn([], 'write a', 'a.txt', 'one\n');
    const listed = await panto(['-c', '--list']);
    expect(rows(listed.stdout)).toHaveLength(1);
    expect(listed.stderr).toContain('panto -c --rewind <ID>');

    const unknown = await panto(['-c', '--rewind', 'ffffffff']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no prompt "ffffffff" in session [0-9a-f-]{36}: panto -r [0-9a-f-]{36} --list lists its prompts/);
    expect(await readdir(e2e.box.cwd)).toEqual(['a.txt']);
  });

  it('--list of a session that does not exist points at panto --list', async () => {
    const missing = await panto(['-r', 'ffffffff', '--list']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("panto: session not found: ffffffff: panto --list shows this folder's sessions");
  });
});
