/**
 * The Claude Agent SDK's own session functions on `DynamoSessionStore`, against the same calls
 * on the SDK's `InMemorySessionStore`: `importSessionToStore` (a local transcript and a
 * subagent's, appended in batches, as the SDK mirrors them), then `getSessionMessages`,
 * `listSessions`, `getSessionInfo`, `listSubagents`, `getSubagentMessages`, `renameSession`,
 * `forkSession` and `deleteSession` — each reads through the store (`load`, `listSessions`,
 * `listSubkeys`) the way a resume does — must give the same answers on both.
 * `query()` itself is not run: it spawns the Claude Code binary, which needs an Anthropic key.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoSessionStore } from '@panto/aws/claude-agent-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { countCommands, localAws } from './setup/aws-fixtures.js';
import { claudeAgentSDK } from './setup/claude-agent-sdk.js';

const home = await mkdtemp(join(tmpdir(), 'panto-claude-sdk-'));
afterAll(() => rm(home, { recursive: true, force: true }));
const cwd = join(home, 'work');
const sessionId = '2b4f6a0e-1c3d-4e5f-8a9b-0c1d2e3f4a5b';

/** A transcript as Claude Code writes it under `$CLAUDE_CONFIG_DIR/projects/<cwd>/`, and a subagent's. */
async function writeLocalTranscripts(): Promise<void> {
  process.env.CLAUDE_CONFIG_DIR = join(home, 'config');
  const project = join(home, 'config', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
  await mkdir(join(project, sessionId, 'subagents'), { recursive: true });
  const base = { sessionId, cwd, version: '2.1.0', gitBranch: 'main', userType: 'external', isSidechain: false };
  const id = (n: number) => `a0000000-0000-4000-8000-00000000000${n}`;
  const assistant = (text: string) => ({
    id: `msg_${text.length}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 10, output_tokens: 5 },
  });
  const main = [
    { ...base, type: 'user', uuid: id(1), parentUuid: null, timestamp: '2026-12-01T10:00:00.000Z', message: { role: 'user', content: 'List the files' } },
    { ...base, type: 'assistant', uuid: id(2), parentUuid: id(1), timestamp: '2026-12-01T10:00:01.000Z', message: assistant('There are two files.') },
    { ...base, type: 'user', uuid: id(3), parentUuid: id(2), timestamp: '2026-12-01T10:01:00.000Z', message: { role: 'user', content: 'Show the big one' } },
    {
      ...base,
      type: 'assistant',
      uuid: id(4),
      parentUuid: id(3),
      timestamp: '2026-12-01T10:01:02.000Z',
      message: assistant(`Here it is: ${'0123456789'.repeat(50_000)}`),
    },
  ];
  const sub = [
    {
      ...base,
      isSidechain: true,
      agentId: 'xyz',
      type: 'user',
      uuid: id(5),
      parentUuid: null,
      timestamp: '2026-12-01T10:00:00.500Z',
      message: { role: 'user', content: 'Find files' },
    },
    {
      ...base,
      isSidechain: true,
      agentId: 'xyz',
      type: 'assistant',
      uuid: id(6),
      parentUuid: id(5),
      timestamp: '2026-12-01T10:00:00.700Z',
      message: assistant('a.ts, b.ts'),
    },
  ];
  const jsonl = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
  await writeFile(join(project, `${sessionId}.jsonl`), jsonl(main));
  await writeFile(join(project, sessionId, 'subagents', 'agent-xyz.jsonl'), jsonl(sub));
}

/** What the SDK's functions answer on `store`, less the times each store stamps for itself. */
async function throughTheSDK(store: object) {
  const sdk = await claudeAgentSDK();
  const options = { sessionStore: store, dir: cwd };
  const withoutStamps = (info: Record<string, unknown> | undefined) => info && { ...info, lastModified: 'stamped', fileSize: 'measured' };
  await sdk.importSessionToStore(sessionId, store, { dir: cwd, batchSize: 2 });
  const answers: Record<string, unknown> = {
    messages: await sdk.getSessionMessages(sessionId, options),
    listed: (await sdk.listSessions(options)).map(withoutStamps),
    info: withoutStamps(await sdk.getSessionInfo(sessionId, options)),
    subagents: await sdk.listSubagents(sessionId, options),
    subagentMessages: await sdk.getSubagentMessages(sessionId, 'xyz', options),
  };
  await sdk.renameSession(sessionId, 'File listing', options);
  answers.renamed = withoutStamps(await sdk.getSessionInfo(sessionId, options));
  const fork = await sdk.forkSession(sessionId, options);
  answers.forkMessages = (await sdk.getSessionMessages(fork.sessionId, options)).map((message) => message.message);
  await sdk.deleteSession(sessionId, options);
  answers.afterDelete = (await sdk.listSessions(options)).map((info) => info.summary);
  answers.deletedMessages = await sdk.getSessionMessages(sessionId, options);
  return answers;
}

describe('the Claude Agent SDK’s session functions on DynamoSessionStore', () => {
  it('answer exactly as they do on the SDK’s InMemorySessionStore, a 500 KB entry included', { timeout: 240_000 }, async () => {
    await writeLocalTranscripts();
    const sdk = await claudeAgentSDK();
    const reference = await throughTheSDK(new sdk.InMemorySessionStore());
    const { dynamo, tableName, s3, bucket } = await localAws('claude-sdk');
    const counts = countCommands(dynamo);
    const answers = await throughTheSDK(new DynamoSessionStore({ client: dynamo, tableName, s3: { client: s3, bucket } }));
    expect(answers).toEqual(reference);
    expect((answers.messages as unknown[]).length).toBe(4);
    expect(answers.subagents).toEqual(['xyz']);
    expect(answers.afterDelete).toEqual(['File listing (fork)']);
    // The import's batches: 2 + 2 main entries and one subagent batch (and its metadata, if any), each one transaction.
    expect(counts.get('TransactWriteItemsCommand')).toBeGreaterThanOrEqual(3);
  });
});
