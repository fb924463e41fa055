/**
 * The built `panto` CLI against a fake LLM server: AGENTS.md files reach the provider's
 * request and `/session` names them; a provider without a key is refused at once (at start
 * and by `/model`); `/model` lists the known models; turns and sessions show their cost in
 * dollars for a model of the catalog and tokens for the rest.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeServerSandbox, runPanto } from './cli-harness.js';

const e2e = fakeServerSandbox();

describe('AGENTS.md context files', { timeout: 60_000 }, () => {
  it('puts $PANTO_HOME/AGENTS.md and those from the repository root down to the folder into the system prompt', async () => {
    await mkdir(join(e2e.box.root, '.git'));
    await mkdir(e2e.box.home, { recursive: true });
    await writeFile(join(e2e.box.home, 'AGENTS.md'), 'HOME-RULE: answer in English.');
    await writeFile(join(e2e.box.root, 'AGENTS.md'), 'ROOT-RULE: run npm test before you finish.');
    await writeFile(join(e2e.box.cwd, 'AGENTS.md'), 'PROJECT-RULE: never touch dist/.');
    e2e.server.enqueue({ text: 'ok' });
    const { args, env } = e2e.openai('gpt-e2e');
    const result = await runPanto([...args, '-p', 'hello'], { cwd: e2e.box.cwd, env });
    expect(result.code).toBe(0);
    const sent = e2e.server.requests[0]!.body as { messages: { role: string; content: string }[] };
    const system = sent.messages[0]!;
    expect(system.role).toBe('system');
    expect(system.content).toContain(`Working folder: ${e2e.box.cwd}`);
    const order = ['HOME-RULE', 'ROOT-RULE', 'PROJECT-RULE'].map((rule) => system.content.indexOf(rule));
    expect(order.every((at) => at > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(system.content).toContain(`## ${join(e2e.box.cwd, 'AGENTS.md')}`);
  });

  it('/session lists the files loaded, and says when there were none', async () => {
    await writeFile(join(e2e.box.cwd, 'AGENTS.md'), 'rules');
    const loaded = await runPanto(['--provider', 'offline'], { cwd: e2e.box.cwd, env: e2e.box.env, stdin: '/session\n' });
    expect(loaded.stdout).toMatch(new RegExp(`^context +${join(e2e.box.cwd, 'AGENTS.md')}$`, 'm'));

    const other = join(e2e.box.root, 'elsewhere');
    await mkdir(other);
    const none = await runPanto(['--provider', 'offline'], { cwd: other, env: e2e.box.env, stdin: '/session\n' });
    expect(none.stdout).toMatch(/^context +no AGENTS\.md loaded$/m);
  });
});

describe('models', { timeout: 60_000 }, () => {
  it('refuses a provider without its key at start, before any request', async () => {
    const result = await runPanto(['--provider', 'openai', '-p', 'hi'], { cwd: e2e.box.cwd, env: e2e.box.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no OPENAI_API_KEY');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(e2e.server.requests).toHaveLength(0);
  });

  it('/model refuses a provider without its key at once and keeps the model; /model alone lists the known models', async () => {
    const result = await runPanto(['--provider', 'offline'], {
      cwd: e2e.box.cwd,
      env: e2e.box.env,
      stdin: '/model anthropic/claude-sonnet-5-5\n/model\n',
    });
    expect(result.stderr).toContain('cannot switch to anthropic/claude-sonnet-5-5: no ANTHROPIC_API_KEY');
    expect(result.stdout).toContain('model: offline/offline-1');
    expect(result.stdout).toMatch(/^ {2}anthropic .*no ANTHROPIC_API_KEY/m);
    expect(result.stdout).toMatch(/^ {4}claude-sonnet-5-5 +default/m);
    expect(result.stdout).toMatch(/^ {4}gpt-5\.4 +default/m);
    // The retired Anthropic model is not listed (Bedrock's Claude Sonnet 4.5 profiles are other models).
    expect(result.stdout).not.toMatch(/^ {4}claude-sonnet-4-5 /m);
    expect(result.stdout).toMatch(/^ {4}global\.anthropic\.claude-sonnet-4-6 +default/m);
  });

  it('refuses a retired model with its replacement', async () => {
    const { args, env } = e2e.openai('gpt-e2e');
    const result = await runPanto([...args.slice(0, 2), '--model', 'claude-sonnet-4-5', '--provider', 'anthropic', '-p', 'hi'], {
      cwd: e2e.box.cwd,
      env: { ...env, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: e2e.server.anthropicBaseURL },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('retired "claude-sonnet-4-5" on 2026-11-30; use "claude-sonnet-5-5"');
    expect(e2e.server.requests).toHaveLength(0);
  });

  it('shows the cost of a turn and of the session in dollars for a known model', async () => {
    // gpt-5.4: $2.50 in, $15 out per million tokens → 1,000 in + 100 out = $0.0025 + $0.0015.
    e2e.server.enqueue({ text: 'one', usage: { input: 1000, output: 100 } });
    e2e.server.enqueue({ text: 'two', usage: { input: 1000, output: 100 } });
    const { args, env } = e2e.openai('gpt-5.4');
    const result = await runPanto(args, { cwd: e2e.box.cwd, env, stdin: 'first\nsecond\n/session\n' });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('tokens: 1,000 in · 100 out · $0.0040 (1 call)');
    expect(result.stdout).toMatch(/^cost +\$0\.0080$/m);
  });

  it('shows the cost of a /compact, which is a provider call too', async () => {
    e2e.server.enqueue({ text: 'one', usage: { input: 1000, output: 100 } });
    e2e.server.enqueue({ text: 'the summary', usage: { input: 2000, output: 200 } });
    const { args, env } = e2e.openai('gpt-5.4');
    const result = await runPanto(args, { cwd: e2e.box.cwd, env, stdin: 'first\n/compact\n/session\n' });
    expect(result.code).toBe(0);
    // 2,000 in + 200 out at gpt-5.4's prices = $0.0050 + $0.0030.
    expect(result.stderr).toContain('tokens: 2,000 in · 200 out · $0.0080');
    expect(result.stdout).toMatch(/^cost +\$0\.0120$/m);
  });

  it('shows tokens only for a model panto has no prices for', async () => {
    e2e.server.enqueue({ text: 'one', usage: { input: 1000, output: 100 } });
    const { args, env } = e2e.openai('gpt-e2e');
    const result = await runPanto(args, { cwd: e2e.box.cwd, env, stdin: 'first\n/session\n' });
    expect(result.stderr).toContain('tokens: 1,000 in · 100 out (1 call)');
    expect(result.stdout).toMatch(/^cost +unknown for openai\/gpt-e2e \(no prices in panto's catalog\)/m);
  });
});
