/**
 * The interactive CLI in a real pseudo-terminal (issue 15 items 2–6 and the CLI of the
 * session tree): prompts of several lines and the input history across runs, approvals
 * before bash, markdown rendering, the session picker of `panto -r`, and `/tree`
 * navigation with edit-and-resend.
 */
import { FakeLLMServer } from '@panto/core/testing';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { historyFileFor } from '@panto/cli/internal';
import { decodeSession } from '@panto/core/store-kit';
import { sessionDirFor } from '@panto/cli';
import { assertBuilt, jsonlFiles, sandbox, type Sandbox } from './cli-harness.js';
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

function panto(args: readonly string[] = [], env: Record<string, string> = {}): PtyCli {
  const cli = startPtyPanto(['--provider', 'openai', '--model', 'gpt-tty', '--base-url', server.openaiBaseURL, ...args], {
    cwd: box.cwd,
    env: { ...box.env, OPENAI_API_KEY: 'sk-test', ...env },
  });
  running.push(cli);
  return cli;
}

function lastUserMessage(index: number): string | undefined {
  const body = server.requests[index]?.body as { messages: { role: string; content: unknown }[] } | undefined;
  const users = body?.messages.filter((message) => message.role === 'user') ?? [];
  const last = users.at(-1)?.content;
  return typeof last === 'string' ? last : JSON.stringify(last);
}

function requestText(index: number): string {
  return JSON.stringify(server.requests[index]?.body);
}

async function requests(count: number): Promise<void> {
  const { until } = await import('./cli-harness.js');
  await until(`${count} requests to the fake model`, () => server.requests.length >= count);
}

describe.skipIf(!hasScript)('panto in a terminal', { timeout: 90_000 }, () => {
  it('takes a prompt of several lines (trailing \\, Alt-Enter, a paste) and recalls it from the history after a restart', async () => {
    server.enqueue({ text: 'Got three lines.' }, { text: 'Got the paste.' });
    const cli = panto();
    await cli.see('> ');
    cli.type('first line\\\r');
    await cli.see('… ');
    cli.mark();
    cli.type(`second line${KEYS.altEnter}`);
    await cli.see('… ');
    cli.type('third line\r');
    await requests(1);
    expect(lastUserMessage(0)).toBe('first line\nsecond line\nthird line');
    await cli.see(/Got three lines\.[\s\S]*> $/);

    cli.mark();
    cli.type('\x1b[200~pasted one\rpasted two\x1b[201~');
    cli.type('\r');
    await requests(2);
    expect(lastUserMessage(1)).toBe('pasted one\npasted two');
    await cli.see(/Got the paste\.[\s\S]*> $/);
    cli.type(KEYS.ctrlD);
    expect(await cli.exited).toBe(0);

    const historyFile = historyFileFor(box.home, box.cwd);
    expect(
      (await readFile(historyFile, 'utf8'))
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as string),
    ).toEqual(['first line\nsecond line\nthird line', 'pasted one\npasted two']);

    // A new run of panto in the same folder: Up recalls the last prompt, line breaks shown as ↵.
    server.enqueue({ text: 'Again.' });
    const again = panto();
    await again.see('> ');
    again.mark();
    again.type(KEYS.up);
    await again.see('pasted one↵pasted two');
    again.type(KEYS.up);
    await again.see('first line↵second line↵third line');
    again.type(KEYS.down);
    again.type('\r');
    await requests(3);
    expect(lastUserMessage(2)).toBe('pasted one\npasted two');
    await again.see(/Again\.[\s\S]*> $/);
    again.type(KEYS.ctrlD);
    expect(await again.exited).toBe(0);
  });

  it('without a sandbox, asks before bash: allow once, deny with a reason the model sees, allow for the session', async () => {
    const bash = (command: string) => ({ text: 'Running it.', toolCalls: [{ name: 'bash', input: { command } }] });
    server.enqueue(bash('touch once.txt'), { text: 'Made it.' }, bash('touch denied.txt'), { text: 'Understood.' });
    server.enqueue(bash('touch session1.txt'), bash('touch session2.txt'), { text: 'Both made.' });
    const cli = panto(['--sandbox', 'off']);
    await cli.see('> ');
    cli.type('make once.txt\r');
    await cli.see('panto wants to run bash:');
    await cli.see('$ touch once.txt');
    await cli.see('[y] allow once  [a] allow bash for this session  [n] deny');
    expect(existsSync(join(box.cwd, 'once.txt'))).toBe(false);
    cli.type('y');
    await cli.see(/Made it\.[\s\S]*> $/);
    expect(existsSync(join(box.cwd, 'once.txt'))).toBe(true);

    cli.mark();
    cli.type('make denied.txt\r');
    await cli.see('$ touch denied.txt');
    cli.type('n');
    await cli.see('why?');
    cli.type('use the Makefile\r');
    await cli.see(/Understood\.[\s\S]*> $/);
    expect(existsSync(join(box.cwd, 'denied.txt'))).toBe(false);
    expect(requestText(3)).toContain('Tool call refused: the user denied it: use the Makefile');

    cli.mark();
    cli.type('make two files\r');
    await cli.see('$ touch session1.txt');
    cli.type('a');
    await cli.see(/Both made\.[\s\S]*> $/);
    // Allowed for the session: the second call did not ask.
    expect(cli.sinceMark()).not.toContain('$ touch session2.txt\n');
    expect(cli.sinceMark().match(/panto wants to run bash/g)).toHaveLength(1);
    expect(existsSync(join(box.cwd, 'session2.txt'))).toBe(true);
    cli.type(KEYS.ctrlD);
    expect(await cli.exited).toBe(0);
  });

  it('in the sandbox, runs a command inside its limits without asking, and asks for one that needs more, naming it', async () => {
    const bash = (command: string, needs?: string[]) => ({
      text: 'Running it.',
      toolCalls: [{ name: 'bash', input: { command, ...(needs ? { needs } : {}) } }],
    });
    server.enqueue(bash('touch quiet.txt'), { text: 'Made it.' }, bash('touch asked.txt', ['write']), { text: 'Made that too.' });
    const cli = panto();
    await cli.see('> ');
    cli.type('make quiet.txt\r');
    await cli.see(/Made it\.[\s\S]*> $/);
    expect(cli.screen()).not.toContain('panto wants to run bash');
    expect(existsSync(join(box.cwd, 'quiet.txt'))).toBe(true);

    cli.mark();
    cli.type('make asked.txt\r');
    await cli.see('it needs writes outside the working folder (and to .git, .panto), beyond the sandbox');
    await cli.see('[y] allow once  [a] allow bash with writes outside the working folder (and to .git, .panto) for this session  [n] deny');
    expect(existsSync(join(box.cwd, 'asked.txt'))).toBe(false);
    cli.type('y');
    await cli.see(/Made that too\.[\s\S]*> $/);
    expect(existsSync(join(box.cwd, 'asked.txt'))).toBe(true);
    cli.type(KEYS.ctrlD);
    expect(await cli.exited).toBe(0);
  });

  it('Ctrl-C at an approval question denies the call and aborts the turn', async () => {
    server.enqueue({ text: 'Running it.', toolCalls: [{ name: 'bash', input: { command: 'touch never.txt' } }] });
    const cli = panto(['--sandbox', 'off']);
    await cli.see('> ');
    cli.type('make never.txt\r');
    await cli.see('[y] allow once');
    cli.type(KEYS.ctrlC);
    await cli.see('interrupted');
    await cli.see('aborted');
    await cli.see(/aborted[\s\S]*> $/);
    expect(existsSync(join(box.cwd, 'never.txt'))).toBe(false);
    cli.type(KEYS.ctrlD);
    expect(await cli.exited).toBe(0);
  });

  it('renders markdown on a terminal (code highlighted), and leaves it plain with NO_COLOR', async () => {
    const answer = '# Plan\n\nSome **bold** words.\n\n```js\nconst answer = 42;\n```\n';
    server.enqueue({ text: answer });
    const { NO_COLOR: _unused, ...colorEnv } = box.env;
    const cli = startPtyPanto(['--provider', 'openai', '--model', 'gpt-tty', '--base-url', server.openaiBaseURL, '-p', 'plan'], {
      cwd: box.cwd,
      env: { ...colorEnv, OPENAI_API_KEY: 'sk-test' },
    });
    running.push(cli);
    expect(await cli.exited).toBe(0);
    expect(cli.screen()).toContain('Some bold words.');
    expect(cli.screen()).not.toContain('**bold**');
    expect(cli.screen()).not.toContain('```');
    expect(cli.raw()).toMatch(/\x1b\[1mbold\x1b\[22m/);
    // The code block is highlighted: the keyword and the number have colours of their own.
    expect(cli.raw()).toMatch(/\x1b\[\d+mconst\x1b\[39m answer = \x1b\[\d+m42\x1b\[39m;/);

    server.enqueue({ text: answer });
    const plain = panto(['-p', 'plan']);
    expect(await plain.exited).toBe(0);
    expect(plain.screen()).toContain('Some **bold** words.');
    expect(plain.screen()).toContain('```js');
  });

  it('panto -p on a terminal shows the answer before its usage line, as an interactive turn does', async () => {
    server.enqueue({ text: 'The answer is here.' });
    const cli = panto(['-p', 'a question']);
    expect(await cli.exited).toBe(0);
    const screen = cli.screen();
    expect(screen).toContain('The answer is here.');
    expect(screen.indexOf('The answer is here.')).toBeLessThan(screen.indexOf('tokens:'));
  });

  it('/tree: moves about the session tree, edits an earlier prompt and resends it as a new branch; /fork copies the path', async () => {
    server.enqueue({ text: 'First answer.' }, { text: 'Second answer.' }, { text: 'Edited answer.' }, { text: 'Third answer.' });
    const cli = panto();
    await cli.see('> ');
    cli.type('first question\r');
    await cli.see(/First answer\.[\s\S]*> $/);
    cli.mark();
    cli.type('second question\r');
    await cli.see(/Second answer\.[\s\S]*> $/);

    // The tree: one line per prompt with its answer's first words, the current path marked.
    cli.mark();
    cli.type('/tree\r');
    await cli.see('Enter: continue after this answer');
    expect(cli.sinceMark()).toContain('● › first question → First answer.');
    expect(cli.sinceMark()).toContain('● › second question → Second answer.  ◀ here');
    // Up to the first prompt, `e`: its text is in the input line, to edit and resend.
    cli.mark();
    cli.type(KEYS.up);
    await cli.see('❯ ● › first question');
    cli.type('e');
    await cli.see('> first question');
    cli.type(' (edited)\r');
    await requests(3);
    expect(lastUserMessage(2)).toBe('first question (edited)');
    expect(requestText(2)).not.toContain('second question');
    await cli.see(/Edited answer\.[\s\S]*> $/);

    // Both branches are in the tree now; go back to the old one's answer and go on from there.
    cli.mark();
    cli.type('/tree\r');
    await cli.see('Enter: continue after this answer');
    expect(cli.sinceMark()).toMatch(/○ ├─ › first question → First answer\./);
    expect(cli.sinceMark()).toMatch(/● ├─ › first question \(edited\) → Edited answer\. {2}◀ here/);
    cli.type(KEYS.up);
    await cli.see('❯ ○    › second question');
    cli.mark();
    cli.type('\r');
    await cli.see('continuing after this answer');
    await cli.see(/> $/);
    cli.type('third question\r');
    await requests(4);
    expect(requestText(3)).toContain('second question');
    expect(requestText(3)).not.toContain('edited');
    await cli.see(/Third answer\.[\s\S]*> $/);

    // /fork: a new session holding the current path, continued from now on.
    cli.mark();
    cli.type('/fork\r');
    await cli.see(/forked \S+ into a new session \S+/);
    const files = await jsonlFiles(sessionDirFor(box.cwd, { PANTO_HOME: box.home }));
    expect(files).toHaveLength(2);
    cli.type(KEYS.ctrlD);
    expect(await cli.exited).toBe(0);
    const forked = (await Promise.all(files.map(async (file) => decodeSession(await readFile(file), file).entries))).find((list) => list.length === 7)!;
    expect(forked.filter((entry) => entry.type === 'message').map((entry) => (entry.type === 'message' ? entry.message.role : ''))).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('panto -r with no id: a picker of the sessions (arrows, type to filter, first and last prompt, age, count) resumes the one chosen', async () => {
    server.enqueue({ text: 'Alpha answer.' }, { text: 'Alpha again.' }, { text: 'Beta answer.' }, { text: 'Back in alpha.' });
    const seed = (prompts: string[]) => {
      const cli = panto();
      return (async () => {
        for (const prompt of prompts) {
          await cli.see(/> $/);
          cli.mark();
          cli.type(`${prompt}\r`);
          await cli.see(/tokens:/);
        }
        await cli.see(/> $/);
        cli.type(KEYS.ctrlD);
        expect(await cli.exited).toBe(0);
      })();
    };
    await seed(['alpha first prompt', 'alpha last prompt']);
    await seed(['beta only prompt']);

    const picker = panto(['-r']);
    await picker.see('resume which session? (2)');
    await picker.see(/alpha first prompt {2}… {2}alpha last prompt/);
    expect(picker.screen()).toMatch(/❯ [0-9a-f]{8} +now +3 msgs {2}beta only prompt/);
    expect(picker.screen()).toMatch(/[0-9a-f]{8} +now +5 msgs {2}alpha first prompt {2}… {2}alpha last prompt/);
    // Typing filters: only alpha is left, and Enter resumes it.
    picker.mark();
    picker.type('alpha');
    await picker.see('filter: alpha');
    await picker.see(/❯ [0-9a-f]{8} +now +5 msgs {2}alpha first/);
    const lastFrame = picker.sinceMark().split('filter: alpha').at(-1)!;
    expect(lastFrame).toContain('alpha first prompt');
    expect(lastFrame).not.toContain('beta only prompt');
    picker.type('\r');
    await picker.see(/resumed \S+ \(5 messages\)/);
    await picker.see('› alpha last prompt');
    await picker.see(/> $/);
    picker.type('and now?\r');
    await requests(4);
    expect(requestText(3)).toContain('alpha last prompt');
    expect(requestText(3)).not.toContain('beta');
    await picker.see(/Back in alpha\.[\s\S]*> $/);
    picker.type(KEYS.ctrlD);
    expect(await picker.exited).toBe(0);

    // Arrows, and Esc: nothing is resumed.
    const cancelled = panto(['-r']);
    await cancelled.see('resume which session? (2)');
    cancelled.type(KEYS.down);
    await cancelled.see(/❯ [0-9a-f]{8} +now +3 msgs {2}beta only prompt/);
    cancelled.type(KEYS.escape);
    await cancelled.see('nothing resumed');
    expect(await cancelled.exited).toBe(0);
  });

  it('panto -p with no prompt on a terminal says how to give one instead of waiting for stdin', async () => {
    const cli = panto(['-p']);
    await cli.see(/--print needs a prompt: panto -p 'PROMPT', or pipe one in/);
    expect(await cli.exited).toBe(2);
  });

  it("panto -r with no id in a folder without sessions says so and points to every folder's list", async () => {
    const cli = panto(['-r']);
    await cli.see(/no sessions to resume in .*panto --list --all shows every folder's/s);
    expect(await cli.exited).toBe(1);
  });
});
