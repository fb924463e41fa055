/**
 * Output that fits the terminal (issue 37, item 11): in a real pseudo-terminal 80 and 100
 * columns wide, `/help`, `/model` and `panto --help` wrap at word boundaries — no line wider
 * than the terminal, every word whole, the same words as when piped — and `/tree`'s key
 * hints are shown whole on as many lines as they need, not cut with `…`.
 */
import { FakeLLMServer } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runPanto, sandbox, type Sandbox } from './cli-harness.js';
import { hasScript, KEYS, startPtyPanto } from './pty-harness.js';

/** The words of `text`, the column separator `·` left out. */
const words = (text: string) => text.split(/\s+/).filter((word) => word !== '' && word !== '·');

/** The lines the terminal shows of `text` (carriage returns and the cursor's redraws left out). */
const shownLines = (text: string) => text.split(/\r?\n/).map((line) => line.split('\r').at(-1)!);

describe.skipIf(!hasScript)('output fits the terminal', { timeout: 90_000 }, () => {
  let server: FakeLLMServer;
  let box: Sandbox;
  let args: string[];
  let env: Record<string, string>;

  beforeAll(async () => {
    assertBuilt();
    server = await FakeLLMServer.start();
    box = await sandbox();
    args = ['--provider', 'openai', '--model', 'gpt-tty', '--base-url', server.openaiBaseURL];
    env = { ...box.env, OPENAI_API_KEY: 'sk-test' };
  });
  afterAll(async () => {
    await server?.close();
    await box?.cleanup();
  });

  /** What `/help` or `/model` prints when piped: one line a row, as scripts get it. */
  async function piped(command: string): Promise<string> {
    const run = await runPanto([...args, '--no-session'], { cwd: box.cwd, env, stdin: `${command}\n` });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  }

  describe.each([80, 100])('%i columns', (columns) => {
    it('/help and /model: no line wider than the terminal, and the same words as piped, none broken', async () => {
      const help = await piped('/help');
      const models = await piped('/model');
      const cli = startPtyPanto(args, { cwd: box.cwd, env, columns });
      try {
        await cli.see(/> $/);
        cli.mark();
        cli.type('/help\r');
        await cli.see(/begin it with \/\.[\s\S]*> $/);
        const shownHelp = cli.sinceMark().slice(cli.sinceMark().indexOf('Commands:'), cli.sinceMark().lastIndexOf('/.') + 2);
        cli.mark();
        cli.type('/model\r');
        await cli.see(/offline-1 +default · free[\s\S]*> $/);
        const shownModels = cli.sinceMark().slice(cli.sinceMark().indexOf('model: '), cli.sinceMark().lastIndexOf('free') + 4);

        for (const shown of [shownHelp, shownModels]) {
          expect(Math.max(...shownLines(shown).map((line) => Array.from(line).length))).toBeLessThanOrEqual(columns);
        }
        expect(words(shownHelp)).toEqual(words(help));
        expect(words(shownModels)).toEqual(words(models.slice(0, models.lastIndexOf('free') + 4)));
        expect(shownLines(shownHelp).length).toBeGreaterThan(help.trimEnd().split('\n').length);
        cli.type(KEYS.ctrlD);
        expect(await cli.exited).toBe(0);
      } finally {
        cli.kill();
      }
    });

    it("/tree's key hints are whole, wrapped instead of cut", async () => {
      server.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
      const cli = startPtyPanto(args, { cwd: box.cwd, env, columns });
      try {
        await cli.see(/> $/);
        cli.type('first\r');
        await cli.see(/First answer\.[\s\S]*> $/);
        cli.type('second\r');
        await cli.see(/Second answer\.[\s\S]*> $/);
        cli.mark();
        cli.type('/tree\r');
        await cli.see('Esc: back');
        const frame = cli.sinceMark();
        const hints = frame.slice(frame.indexOf('↑↓ move'));
        expect(hints).not.toContain('…');
        expect(words(hints).join(' ')).toContain('↑↓ move Enter: continue after this answer e: edit this prompt and resend it (a new branch) Esc: back');
        expect(Math.max(...shownLines(hints).map((line) => Array.from(line).length))).toBeLessThan(columns);
        cli.type(KEYS.escape);
        await cli.see(/> $/);
        cli.type(KEYS.ctrlD);
        expect(await cli.exited).toBe(0);
      } finally {
        cli.kill();
      }
    });

    it('panto --help: no line wider than the terminal, the same words as piped', async () => {
      const help = (await runPanto(['--help'], { cwd: box.cwd, env })).stdout;
      const cli = startPtyPanto(['--help'], { cwd: box.cwd, env, columns });
      expect(await cli.exited).toBe(0);
      const shown = cli.screen();
      expect(Math.max(...shownLines(shown).map((line) => Array.from(line).length))).toBeLessThanOrEqual(columns);
      expect(words(shown)).toEqual(words(help));
    });
  });
});
