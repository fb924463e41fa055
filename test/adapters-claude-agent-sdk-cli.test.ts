/**
 * Opt-in (`PANTO_TEST_CLAUDE_CLI=1`): the Claude Agent SDK's `query()` — the Claude Code binary
 * itself, installed with the SDK under node_modules/.cache (~360 MB, once) — mirroring its
 * transcript into `DynamoSessionStore` on DynamoDB Local while it talks to a fake Anthropic
 * Messages server over HTTP, then resuming the session with a new config folder, so the
 * transcript can only come from the store. Not part of `npm test` by default: the download.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoSessionStore, type SessionKey, type SessionStoreEntry } from '@panto/aws/claude-agent-sdk';
import { FakeLLMServer } from '@panto/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { localAws } from './setup/aws-fixtures.js';
import { claudeAgentSDK } from './setup/claude-agent-sdk.js';

const home = await mkdtemp(join(tmpdir(), 'panto-claude-cli-'));
afterAll(() => rm(home, { recursive: true, force: true }));

describe.skipIf(process.env.PANTO_TEST_CLAUDE_CLI !== '1')('the Claude Code binary on DynamoSessionStore', () => {
  it('mirrors a turn into the store, and resumes from the store alone', { timeout: 900_000 }, async () => {
    const sdk = await claudeAgentSDK(true);
    const server = await FakeLLMServer.start();
    try {
      server.enqueue({ text: 'Paris is the capital of France.' }, { text: 'Rome is the capital of Italy.' });
      const { dynamo, tableName, s3, bucket } = await localAws('claude-cli');
      const store = new DynamoSessionStore({ client: dynamo, tableName, s3: { client: s3, bucket } });
      const calls: string[] = [];
      const sessionStore = {
        append: (key: SessionKey, entries: SessionStoreEntry[]) => {
          calls.push('append');
          return store.append(key, entries);
        },
        load: (key: SessionKey) => {
          calls.push('load');
          return store.load(key);
        },
        listSubkeys: (key: { projectKey: string; sessionId: string }) => {
          calls.push('listSubkeys');
          return store.listSubkeys(key);
        },
        listSessions: (projectKey: string) => store.listSessions(projectKey),
        delete: (key: SessionKey) => store.delete(key),
      };
      const cwd = join(home, 'work');
      await mkdir(cwd, { recursive: true });
      const env = (config: string) => ({
        ...process.env,
        ANTHROPIC_BASE_URL: server.anthropicBaseURL,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        CLAUDE_CONFIG_DIR: join(home, config),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      });
      const options = { sessionStore, cwd, model: 'claude-sonnet-4-5', maxTurns: 1, allowedTools: [] };
      let sessionId = '';
      let first = '';
      for await (const message of sdk.query({ prompt: 'What is the capital of France?', options: { ...options, env: env('config-1') } })) {
        if (message.type === 'system' && message.subtype === 'init') sessionId = message.session_id ?? '';
        if (message.type === 'result') first = message.result ?? '';
      }
      expect(first).toBe('Paris is the capital of France.');
      expect(calls).toContain('append');
      calls.length = 0;
      let second = '';
      for await (const message of sdk.query({ prompt: 'And of Italy?', options: { ...options, resume: sessionId, env: env('config-2') } })) {
        if (message.type === 'result') second = message.result ?? '';
      }
      expect(second).toBe('Rome is the capital of Italy.');
      expect(calls.slice(0, 2)).toEqual(['load', 'listSubkeys']);
      const sent = JSON.stringify((server.requests.at(-1)?.body as { messages?: unknown[] } | undefined)?.messages);
      expect(sent).toContain('Paris is the capital of France.');
    } finally {
      await server.close();
    }
  });
});
