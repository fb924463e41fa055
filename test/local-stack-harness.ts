/**
 * `scripts/start.ts` — the real local server, as `npm start` runs it — in its own process, on
 * the run's DynamoDB Local and s3rver, with a FakeLLMServer as the Anthropic API: the one way
 * the end-to-end and browser tests start it (the spawn itself: local-server-process.ts).
 */
import type { FakeLLMServer } from '@panto/core/testing';
import { inject } from 'vitest';
import { type LocalServerProcess, spawnLocalServer } from './local-server-process.js';
import type { LocalAws } from './setup/aws-fixtures.js';

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

export type LocalStack = LocalServerProcess;

/** Starts the server on a free port and waits until it listens. */
export function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  return spawnLocalServer({
    PANTO_DATA_DIR: options.dataDir,
    PANTO_DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    PANTO_S3_ENDPOINT: inject('s3Endpoint'),
    PANTO_TABLE: options.aws.tableName,
    PANTO_BUCKET: options.aws.bucket,
    PANTO_PROVIDER: 'anthropic',
    PANTO_MODEL: options.model,
    ...(options.fake === undefined ? {} : { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: options.fake.anthropicBaseURL }),
    ...options.env,
  });
}
