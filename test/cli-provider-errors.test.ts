/**
 * A failed provider call says what to check (issue 37, item 10): the URL panto called and where
 * it came from for a connection that failed, the variable the key came from for a 401 —
 * through the built CLI, the official SDKs talking to a dead port or to the fake LLM server.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fakeServerSandbox, runPanto } from './cli-harness.js';

const e2e = fakeServerSandbox();

/** A loopback port nothing listens on (taken, then given back). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('provider errors name what to check', { timeout: 60_000 }, () => {
  it('a dead base URL from OPENAI_BASE_URL is named, with the variable it came from', async () => {
    const url = `http://127.0.0.1:${await deadPort()}/v1`;
    const run = await runPanto(['--provider', 'openai', '--model', 'gpt-e2e', '-p', 'hi'], {
      cwd: e2e.box.cwd,
      env: { ...e2e.box.env, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: url },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `error: openai: could not reach the API: Connection error. — panto called ${url} (from OPENAI_BASE_URL): is a server listening there`,
    );
  });

  it('a dead --base-url is named as the flag, in the json result too', async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const run = await runPanto(['--provider', 'anthropic', '--model', 'claude-e2e', '--base-url', url, '-p', 'hi', '--output-format', 'json'], {
      cwd: e2e.box.cwd,
      env: { ...e2e.box.env, ANTHROPIC_API_KEY: 'sk-ant-test' },
    });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout) as { is_error: boolean; error: string };
    expect(result).toMatchObject({ is_error: true, error: expect.stringContaining(`panto called ${url} (from --base-url)`) });
  });

  it('a 401 names the variable the key came from: OPENAI_API_KEY, ANTHROPIC_API_KEY', async () => {
    e2e.server.enqueue({ status: 401 });
    const openai = await runPanto([...e2e.openai().args, '-p', 'hi'], { cwd: e2e.box.cwd, env: e2e.openai().env });
    expect(openai.code).toBe(1);
    expect(openai.stderr).toMatch(
      /error: openai 401 .* — the key is OPENAI_API_KEY: check it, or whether http:\/\/127\.0\.0\.1:\d+\/v1 \(from --base-url\) is the server it is for/,
    );

    e2e.server.enqueue({ status: 401 });
    const anthropic = await runPanto(['--provider', 'anthropic', '--model', 'claude-e2e', '-p', 'hi'], {
      cwd: e2e.box.cwd,
      env: { ...e2e.box.env, ANTHROPIC_API_KEY: 'sk-ant-wrong', ANTHROPIC_BASE_URL: e2e.server.anthropicBaseURL },
    });
    expect(anthropic.code).toBe(1);
    expect(anthropic.stderr).toContain('— the key is ANTHROPIC_API_KEY: check it, or whether');
    expect(anthropic.stderr).toContain('(from ANTHROPIC_BASE_URL) is the server it is for');
  });
});
