/**
 * A session file from elsewhere (an export someone sends, an S3 export) whose prompts hold
 * terminal control sequences — a title change, a bell, a right-to-left override that makes
 * `txt.exe` read as `exe.txt` — listed with the built `panto`: `panto -r <file> --list`,
 * `panto --list` once it is resumed, and the `--rewind` note write them as escapes, so the
 * file's text never reaches the terminal as commands.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeServerSandbox, runPanto } from '../cli-harness.js';

const e2e = fakeServerSandbox();
const HOSTILE = 'write \x1b]0;owned\x07 a \u202etxt.exe';
const ESCAPED = 'write \\e]0;owned\\u{7} a \\u{202e}txt.exe';
const RAW = /[\x1b\x07\u202e]/;

async function panto(argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { args, env } = e2e.openai();
  return await runPanto([...args, ...argv], { cwd: e2e.box.cwd, env });
}

/** The one session file under PANTO_HOME's session folders. */
async function sessionFile(): Promise<string> {
  const root = join(e2e.box.home, 'sessions');
  const [folder] = await readdir(root);
  const [file] = (await readdir(join(root, folder!))).filter((name) => name.endsWith('.jsonl'));
  return join(root, folder!, file!);
}

describe("a session file's prompts cannot drive the terminal through panto's listings", { timeout: 90_000 }, () => {
  it('writes their control characters as escapes: -r <file> --list, --list, and the --rewind note', async () => {
    e2e.server.enqueue({ toolCalls: [{ name: 'write', input: { path: 'a.txt', content: 'one\n' } }] }, { text: 'wrote a.txt' });
    const turn = await panto(['--yolo', '-p', HOSTILE, '--output-format', 'json']);
    expect(turn.code, turn.stderr).toBe(0);
    const { prompt_id: promptId } = JSON.parse(turn.stdout) as { prompt_id: string };
    // The session as a file handed over from elsewhere: outside the session folders.
    const imported = join(e2e.box.cwd, '..', 'sent-to-me.jsonl');
    await writeFile(imported, await readFile(await sessionFile()));

    const fromFile = await panto(['-r', imported, '--list']);
    const sessions = await panto(['--list']);
    const rewound = await panto(['-c', '--rewind', promptId]);
    for (const run of [fromFile, sessions, rewound]) expect(run.code, run.stderr).toBe(0);
    for (const output of [fromFile.stdout, sessions.stdout, rewound.stderr]) {
      expect(output).toContain(ESCAPED);
      expect(output).not.toMatch(RAW);
    }
  });
});
