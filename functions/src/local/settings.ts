/** The local stack's settings (`npm start`): the deployed service's, plus where its emulators and data live. */
import { join, resolve } from 'node:path';
import {
  archiveAfter,
  corsOrigins,
  idempotencyTtl,
  usageLimits,
  integer,
  mcpSettings,
  providerConfig,
  serviceLimits,
  sessionTtl,
  type Env,
  type ServiceConfig,
} from '../config.js';
import { parseModelPrices } from '../model-prices.js';

export interface LocalSettings {
  config: ServiceConfig;
  /** The local data folder (`PANTO_DATA_DIR`, default `.panto-local`). */
  dataDir: string;
  /** `PORT`, default 3000; 0 picks a free port. */
  port: number;
  /** The owner `npm start` prints a token for (`PANTO_OWNER`). */
  defaultOwner: string;
  /** Emulators already running, to use instead of starting them (`PANTO_DYNAMODB_ENDPOINT`, `PANTO_S3_ENDPOINT`). */
  external: { dynamodb?: string; s3?: string };
  /**
   * The ports of the emulators `npm start` starts (`PANTO_DYNAMODB_PORT`, `PANTO_S3_PORT`);
   * 0, the default, picks a free one each start. Pinned, they suit a machine whose ports are
   * restricted (a firewall, a container that publishes a few).
   */
  emulatorPorts: { dynamodb: number; s3: number };
  /**
   * Automatic archiving, when `PANTO_ARCHIVE_AFTER_DAYS` is set: the server sweeps every
   * `PANTO_ARCHIVE_SWEEP_SECONDS` (default 3600) — what the scheduled function does on AWS.
   */
  archive?: { afterMs: number; sweepSeconds: number };
}

/**
 * How often a turn renews its lease on the local stack unless `PANTO_LEASE_RENEW_MS` says
 * otherwise: a stop request (the web page's Stop button) is seen at the next renewal, and a
 * renewal of DynamoDB Local costs nothing — so a second, not the service's 10 s.
 */
export const LOCAL_LEASE_RENEW_MS = 1000;

/** The configuration of the local stack (`npm start`), relative to the repository root. */
export function localSettings(root: string, env: Env = process.env): LocalSettings {
  const dataDir = resolve(root, env.PANTO_DATA_DIR ?? '.panto-local');
  const apiKeys: { [provider: string]: string } = {};
  if (env.ANTHROPIC_API_KEY) apiKeys.anthropic = env.ANTHROPIC_API_KEY;
  if (env.OPENAI_API_KEY) apiKeys.openai = env.OPENAI_API_KEY;
  const external: LocalSettings['external'] = {};
  if (env.PANTO_DYNAMODB_ENDPOINT) external.dynamodb = env.PANTO_DYNAMODB_ENDPOINT;
  if (env.PANTO_S3_ENDPOINT) external.s3 = env.PANTO_S3_ENDPOINT;
  const emulatorPorts = {
    dynamodb: emulatorPort(env, 'PANTO_DYNAMODB_PORT', 'PANTO_DYNAMODB_ENDPOINT'),
    s3: emulatorPort(env, 'PANTO_S3_PORT', 'PANTO_S3_ENDPOINT'),
  };
  const { archiveAfterMs } = archiveAfter(env);
  const sweepSeconds = integer(env, 'PANTO_ARCHIVE_SWEEP_SECONDS', 3600, 1, 86_400);
  const limits = serviceLimits(env);
  if (!env.PANTO_LEASE_RENEW_MS) limits.leaseRenewMs = Math.min(limits.leaseRenewMs, LOCAL_LEASE_RENEW_MS);
  return {
    config: {
      tableName: env.PANTO_TABLE ?? 'panto-sessions',
      bucket: env.PANTO_BUCKET ?? 'panto-exports',
      aws: { region: env.AWS_REGION ?? 'us-east-1' },
      limits,
      provider: providerConfig(env, apiKeys),
      corsOrigins: corsOrigins(env),
      idempotencyTtlSeconds: idempotencyTtl(env),
      ...sessionTtl(env),
      mcp: mcpSettings(env.PANTO_MCP_SERVERS, 'PANTO_MCP_SERVERS', env.PANTO_MCP_APPROVALS),
      usage: usageLimits(env),
      modelPrices: parseModelPrices(env.PANTO_MODEL_PRICES),
    },
    dataDir,
    port: integer(env, 'PORT', 3000, 0, 65_535),
    defaultOwner: env.PANTO_OWNER ?? 'local-user',
    external,
    emulatorPorts,
    ...(archiveAfterMs === undefined ? {} : { archive: { afterMs: archiveAfterMs, sweepSeconds } }),
  };
}

/** An emulator's port (0: any free one); an error when set beside the endpoint of an emulator that is not started. */
function emulatorPort(env: Env, name: string, endpointName: string): number {
  const port = integer(env, name, 0, 0, 65_535);
  if (port !== 0 && env[endpointName]) {
    throw new Error(`${name} is the port of the emulator npm start starts, and with ${endpointName} it starts none: set one of them`);
  }
  return port;
}

/**
 * The origins the local stack's own pages are served from once it listens on `port`: its
 * web client and API reference call the API from there.
 */
export function localOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

/** Where the local stack keeps the secret its HS256 tokens are signed with. */
export function localSecretFile(dataDir: string): string {
  return join(dataDir, 'auth-secret');
}
