/**
 * `scripts/start.ts` — the real local server, as `npm start` runs it — in its own process, on
 * the run's DynamoDB Local and s3rver, with a FakeLLMServer as the Anthropic API: the one way
 * the end-to-end and browser tests start it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeLLMServer } from '@panto/core/testing';
import { inject } from 'vitest';
import type { LocalAws } from './setup/aws-fixtures.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Settings of the test's own environment that would change what the server does. */
const INHERITED_SETTINGS = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'PANTO_MODEL',
  'PORT',
  'PANTO_LEASE_RENEW_MS',
  'PANTO_OWNER',
  'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
];

export interface LocalStackOptions {
  aws: LocalAws;
  dataDir: string;
  /** The Anthropic API the server calls; none for a server on another provider (set it in `env`). */
  fake?: FakeLLMServer;
  /** The Anthropic model the server uses by default. */
  model: string;
  /** More settings (`PANTO_LEASE_MS`, `PANTO_MCP_SERVERS`, …); they win over the defaults. */
  env?: NodeJS.ProcessEnv;
}

export interface LocalStack {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The browser sign-in link it printed (`<url>/#token=…`). */
  signInLink: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Sends `signal` (SIGINT: a clean stop) and waits for the exit; nothing when it already exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts the server on a free port and waits until it listens. */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_SETTINGS) delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@panto/source', 'scripts/start.ts'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...env,
      PORT: '0',
      PANTO_DATA_DIR: options.dataDir,
      PANTO_DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
      PANTO_S3_ENDPOINT: inject('s3Endpoint'),
      PANTO_TABLE: options.aws.tableName,
      PANTO_BUCKET: options.aws.bucket,
      PANTO_PROVIDER: 'anthropic',
      PANTO_MODEL: options.model,
      ...(options.fake === undefined ? {} : { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: options.fake.anthropicBaseURL }),
      ...options.env,
    },
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  // The banner is one write: the link is there once "listening on" is.
  const { url, signInLink } = await new Promise<{ url: string; signInLink: string }>((resolveStarted, reject) => {
    const check = (): void => {
      const listening = /panto: listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
      const link = /browser +(http:\/\/127\.0\.0\.1:\d+\/#token=[\w.-]+)/.exec(text)?.[1];
      if (listening && link) resolveStarted({ url: listening, signInLink: link });
    };
    child.stdout?.on('data', check);
    child.once('exit', (code, signal) => reject(new Error(`the server exited (${code ?? signal}) before listening:\n${text}`)));
  });
  return {
    child,
    url,
    signInLink,
    output: () => text,
    async stop(signal = 'SIGINT') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
      child.kill(signal);
      await exited;
    },
  };
}
