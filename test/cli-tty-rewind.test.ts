/**
 * Issue 28 in a real pseudo-terminal: a slow streamed answer rendered as markdown shows its
 * first words before it ends, and `/rewind` takes the files (what `write` and `bash` changed)
 * and the conversation back to before a prompt.
 */
import { FakeLLMServer } from '@panto/core/testing';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertBuilt, sandbox, until, type Sandbox } from './cli-harness.js';
import { hasScript, KEYS, startPtyPanto, type PtyCli } from './pty-harness.js';

let server: FakeLLMServer;
let box: Sandbox;
const running: PtyCli[] = [];

beforeAll(() => assertBuilt());
beforeEach(async () => {
  server = await FakeLLMServer.start();
  box = await sandbox();
});
afterEach(async (context) => {
  if (context.task.result?.state === 'fail') for (const cli of running) console.log(JSON.stringify(cli.raw()));
  for (const cli of running.splice(0)) cli.kill();
  await server.close();
  await box.cleanup();
});

function panto(args: readonly string[], env: Record<string, string>): PtyCli {
  const cli = startPtyPanto(['--provider', 'openai', '--model', 'gpt-tty', '--base-url', server.openaiBaseURL, ...args], {
    cwd: box.cwd,
    env: { ...env, OPENAI_API_KEY: 'sk-test' },
  });
  running.push(cli);
  return cli;
}

async function files(dir = box.cwd, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(out, await files(path, `${prefix}${entry.name}/`));
    else out[`${prefix}${entry.name}`] = await readFile(path, 'utf8');
  }
  return out;
}

describe.skipIf(!hasScript)('issue 28 in a terminal', { timeout: 90_000 }, () => {
  it('markdown on: the first words of a slow answer are on screen before it ends, and each block is rendered once complete', async () => {
    server.enqueue({ text: 'Streaming **answers** show up early.\n\nA second paragraph ends `here`.', pauseAfterDeltas: 3 });
    const { NO_COLOR: _unused, ...colorEnv } = box.env;
    const cli = panto([], colorEnv);
    await cli.see(/> $/);
    cli.mark();
    cli.type('tell me\r');
    // The model is paused after three deltas: what came so far is on screen, raw.
    await cli.see('Streaming', 'the first words before the answer ends');
    expect(cli.sinceMark()).not.toContain('second paragraph');
    server.resume();
    // The prompt back: keys typed before it are the turn's (Esc stops it), not the input line's.
    await cli.see(/second paragraph ends[\s\S]*tokens:[\s\S]*> $/);
    // The first paragraph, once complete, was rendered: its bold has no markers left.
    expect(cli.raw()).toMatch(/\x1b\[1manswers\x1b\[22m/);
    expect(cli.raw()).toMatch(/\x1b\[[\d;]*m+here\x1b\[[\d;]*m/);
    cli.type(KEYS.ctrlD);
    expect(await cli.exited).toBe(0);
  });

  it('/rewind: to turn 2 gives the files after turn 1, to turn 1 the files before it, and the prompt back in the input line', async () => {
    await writeFile(join(box.cwd, 'b.txt'), 'b\n');
    const command = 'echo two > a.txt && rm b.txt && mkdir -p c && echo d > c/d.txt';
    server.enqueue(
      { toolCalls: [{ name: 'write', input: { path: 'a.txt', content: 'one\n' } }] },
      { text: 'Wrote a.' },
      { toolCalls: [{ name: 'bash', input: { command } }] },
      { text: 'Changed things.' },
    );
    const cli = panto(['--yolo'], box.env);
    await cli.see(/> $/);
    cli.type('write a\r');
    await cli.see(/Wrote a\.[\s\S]*> $/);
    cli.mark();
    cli.type('change things\r');
    await cli.see(/Changed things\.[\s\S]*> $/);
    expect(await files()).toEqual({ 'a.txt': 'two\n', 'c/d.txt': 'd\n' });

    // Newest prompt first: Enter picks turn 2, Enter again "files and conversation".
    cli.mark();
    cli.type('/rewind\r');
    await cli.see('rewind to before which prompt?');
    await cli.see(/❯ ◆ \S+ {2}change things/);
    cli.type(KEYS.enter);
    await cli.see('restore the files only');
    cli.type(KEYS.enter);
    await cli.see('> change things', 'the prompt back in the input line');
    expect(cli.sinceMark()).toContain('files removed (created since): c/d.txt');
    expect(await files()).toEqual({ 'a.txt': 'one\n', 'b.txt': 'b\n' });

    // Clear the line (Ctrl-C), then back to before turn 1, files only: the file it wrote goes.
    cli.type(KEYS.ctrlC);
    await until('the input line to be cleared', () => /> $/.test(cli.screen()));
    cli.mark();
    cli.type('/rewind\r');
    await cli.see(/◆ \S+ {2}write a/);
    cli.type(KEYS.down);
    await cli.see(/❯ ◆ \S+ {2}write a/);
    cli.type(KEYS.enter);
    await cli.see('restore the files only');
    cli.type(KEYS.down);
    cli.type(KEYS.enter);
    await cli.see('files removed (created since): a.txt');
    expect(await files()).toEqual({ 'b.txt': 'b\n' });
    await cli.see(/> $/);
    cli.type(KEYS.ctrlD);
    expect(await cli.exited).toBe(0);
  });

  it('/tree going back to an earlier answer offers the files too: both takes them to how they were after that turn', async () => {
    server.enqueue(
      { toolCalls: [{ name: 'write', input: { path: 'one.txt', content: '1\n' } }] },
      { text: 'First done.' },
      { toolCalls: [{ name: 'write', input: { path: 'two.txt', content: '2\n' } }] },
      { text: 'Second done.' },
    );
    const cli = panto(['--yolo'], box.env);
    await cli.see(/> $/);
    cli.type('first\r');
    await cli.see(/First done\.[\s\S]*> $/);
    cli.mark();
    cli.type('second\r');
    await cli.see(/Second done\.[\s\S]*> $/);
    expect(await files()).toEqual({ 'one.txt': '1\n', 'two.txt': '2\n' });
    cli.mark();
    cli.type('/tree\r');
    await cli.see('Enter: continue after this answer');
    cli.type(KEYS.up);
    await cli.see('❯ ● › first');
    cli.type(KEYS.enter);
    await cli.see('go back to after that prompt');
    await cli.see('restore the conversation only');
    cli.type(KEYS.enter);
    await cli.see('continuing after this answer');
    expect(cli.sinceMark()).toContain('files removed (created since): two.txt');
    expect(await files()).toEqual({ 'one.txt': '1\n' });
    await cli.see(/> $/);
    cli.type(KEYS.ctrlD);
    expect(await cli.exited).toBe(0);
  });

  it('/rewind on a terminal names a file changed outside panto and overwrites it only when confirmed', async () => {
    server.enqueue({ toolCalls: [{ name: 'write', input: { path: 'a.txt', content: 'one\n' } }] }, { text: 'Wrote a.' });
    const cli = panto(['--yolo'], box.env);
    await cli.see(/> $/);
    cli.type('write a\r');
    await cli.see(/Wrote a\.[\s\S]*> $/);
    await writeFile(join(box.cwd, 'a.txt'), 'mine\n');
    await writeFile(join(box.cwd, 'b.txt'), 'also mine\n');
    cli.mark();
    cli.type('/rewind\r');
    await cli.see(/❯ ◆ \S+ {2}write a/);
    cli.type(KEYS.enter);
    await cli.see('restore the files only');
    cli.type(KEYS.enter);
    await cli.see('changed outside panto since then: a.txt, b.txt');
    await cli.see('overwrite them too? [y/N]');
    cli.type('y');
    await cli.see('files removed (created since): a.txt, b.txt');
    expect(await files()).toEqual({});
    // Ctrl-C once the prompt is back in the input line: typed while the rewind ended, it could miss the line.
    await cli.see('> write a', 'the prompt back in the input line');
    cli.type(KEYS.ctrlC);
    await until('the input line to be cleared', () => /> $/.test(cli.screen()));
    cli.type(KEYS.ctrlD);
    expect(await cli.exited).toBe(0);
  });
});
