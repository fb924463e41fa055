/**
 * The Claude Agent SDK's own JavaScript, for tests that call its session functions on a store:
 * `@anthropic-ai/claude-agent-sdk` installed on first use under node_modules/.cache without its
 * optional dependency — the ~400 MB native Claude Code binary that only `query()` runs — and
 * without its peers (`sdk.mjs` imports nothing but Node's built-ins). 5 MB, one package, the
 * version the docs name as tested. It is not a dependency of the repository: no one installing
 * panto downloads the binary for a test.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

export const CLAUDE_AGENT_SDK_VERSION = '0.3.328';

function cacheOf(withBinary: boolean): string {
  const name = `panto-claude-agent-sdk-${CLAUDE_AGENT_SDK_VERSION}${withBinary ? '-with-binary' : ''}`;
  return fileURLToPath(new URL(`../../node_modules/.cache/${name}/`, import.meta.url));
}

/** What the tests call of the SDK (its `sdk.d.ts` has the full types; the store side is `SessionStore`). */
export interface ClaudeAgentSDK {
  InMemorySessionStore: new () => object;
  importSessionToStore(sessionId: string, store: object, options?: { dir?: string; batchSize?: number }): Promise<void>;
  getSessionMessages(sessionId: string, options: { sessionStore: object; dir: string }): Promise<Array<Record<string, unknown>>>;
  getSessionInfo(sessionId: string, options: { sessionStore: object; dir: string }): Promise<Record<string, unknown> | undefined>;
  listSessions(options: { sessionStore: object; dir: string }): Promise<Array<Record<string, unknown>>>;
  listSubagents(sessionId: string, options: { sessionStore: object; dir: string }): Promise<string[]>;
  getSubagentMessages(sessionId: string, agentId: string, options: { sessionStore: object; dir: string }): Promise<Array<Record<string, unknown>>>;
  renameSession(sessionId: string, title: string, options: { sessionStore: object; dir: string }): Promise<void>;
  forkSession(sessionId: string, options: { sessionStore: object; dir: string }): Promise<{ sessionId: string }>;
  deleteSession(sessionId: string, options: { sessionStore: object; dir: string }): Promise<void>;
  /** Runs the Claude Code binary (installed only `withBinary`). */
  query(args: { prompt: string; options: Record<string, unknown> }): AsyncIterable<{ type: string; subtype?: string; session_id?: string; result?: string }>;
}

/**
 * The SDK's module, installed first if it is not yet (npm, ~30 s once). `withBinary` installs
 * its platform package too (the Claude Code binary, ~360 MB), for `query()`.
 */
export async function claudeAgentSDK(withBinary = false): Promise<ClaudeAgentSDK> {
  const cache = cacheOf(withBinary);
  const entry = `${cache}node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs`;
  if (!existsSync(entry)) {
    await promisify(execFile)(
      'npm',
      [
        'install',
        '--prefix',
        cache,
        '--no-save',
        '--no-package-lock',
        ...(withBinary ? [] : ['--omit=optional']),
        '--omit=peer',
        '--no-audit',
        '--no-fund',
        `@anthropic-ai/claude-agent-sdk@${CLAUDE_AGENT_SDK_VERSION}`,
      ],
      { timeout: 600_000 },
    );
  }
  return (await import(pathToFileURL(entry).href)) as ClaudeAgentSDK;
}
