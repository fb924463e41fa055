/**
 * `npm start`: the whole service on this machine, with no AWS account and no network.
 * DynamoDB Local and s3rver keep their data under the local data folder (`.panto-local/`,
 * `PANTO_DATA_DIR`), so sessions survive a restart; the table and bucket are created when
 * absent; the same Hono app as in Lambda serves on http://127.0.0.1:3000 (`PORT`), with
 * HS256 tokens signed by a secret kept in the data folder, and an interactive API reference on
 * `/reference`, and the web client (web/, built when stale) at `/`. Browsers may call it from
 * its own origin and from `PANTO_CORS_ORIGINS`. Ctrl-C stops everything.
 *
 * Set `PANTO_DYNAMODB_ENDPOINT` and `PANTO_S3_ENDPOINT` to use emulators that are already
 * running instead of starting them, or `PANTO_DYNAMODB_PORT` and `PANTO_S3_PORT` to pin the
 * ports of those it starts (by default each start picks free ones). With `PANTO_ARCHIVE_AFTER_DAYS`, the server also runs
 * the archive sweeper every `PANTO_ARCHIVE_SWEEP_SECONDS` (default 3600), as the scheduled
 * function does on AWS.
 */
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { serve } from '@hono/node-server';
import { createTable } from '@panto/aws';
import { displayURL } from '@panto/core/mcp';
import {
  type AwsClients,
  plainTelemetry,
  providerResolver,
  runArchiveSweep,
  type ServiceConfig,
  serviceApp,
  startArchiveSweeper,
  tracingFromEnv,
} from '@panto/functions';
import {
  hs256Verifier,
  type LocalSettings,
  localAwsClients,
  localOrigins,
  localSecretFile,
  localSettings,
  readLocalSecret,
  signLocalToken,
} from '@panto/functions/local';
import { freePort } from './local/child-process.js';
import { startDynamoDBLocal, suppressNodeVersionWarning } from './local/dynamodb-local.js';
import { displayDataDir, preflight, StartupError } from './local/preflight.js';
import { withReference } from './local/reference.js';
import { startS3Local } from './local/s3-local.js';
import { writeLocalStack } from './local/stack-file.js';
import { buildWeb, webPaths, withWeb } from './local/web.js';

interface Stoppable {
  name: string;
  stop(): Promise<void>;
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const running: Stoppable[] = [];
let stopping: Promise<void> | undefined;

async function main(): Promise<void> {
  // Before any AWS SDK client exists: the SDK's Node 20 deprecation warning is not the user's business here.
  suppressNodeVersionWarning();

  const settings = readSettings();
  const { config, dataDir } = settings;
  // Before anything starts: a taken port or a missing Java is one sentence now, not a stack trace later.
  await preflight({
    port: settings.port,
    emulatorPorts: settings.emulatorPorts,
    startsDynamoDB: settings.external.dynamodb === undefined,
    env: process.env,
  });
  await mkdir(dataDir, { recursive: true });

  // Built first (a few seconds, only when web/ changed): the page is served from this server.
  if (
    await buildWeb(root).catch((error: unknown) => {
      say(`could not build the web client (web/): ${error instanceof Error ? error.message : String(error)}`);
      return false;
    })
  )
    say('built the web client (web/dist)');

  say('starting DynamoDB Local and the S3 emulator …');
  const [dynamodb, s3] = await Promise.all([
    settings.external.dynamodb ?? launch(startDynamoDBLocal({ dataDir: join(dataDir, 'dynamodb'), port: settings.emulatorPorts.dynamodb }), 'DynamoDB Local'),
    settings.external.s3 ?? launch(startS3Local({ directory: join(dataDir, 's3'), port: settings.emulatorPorts.s3 }), 's3rver'),
  ]);
  config.aws = { ...config.aws, dynamodb, s3 };
  const clients = localAwsClients(config.aws);
  await createStorage(clients, config);
  // `npm run user -- limits|usage` on the same PANTO_DATA_DIR finds the table here.
  await writeLocalStack(dataDir, { dynamodb, tableName: config.tableName });

  const secret = await readLocalSecret(localSecretFile(dataDir));
  // The port is settled before the app is built: its own origin is one browsers may call it from.
  const port = settings.port === 0 ? await freePort() : settings.port;
  config.corsOrigins = [...localOrigins(port), ...config.corsOrigins];
  const tracing = await tracingFromEnv(process.env, { flushEachRequest: false, warn: say });
  if (tracing) running.push({ name: 'tracing', stop: () => tracing.shutdown() });
  const app = withWeb(
    withReference(serviceApp(config, hs256Verifier(secret), { clients, telemetry: plainTelemetry(), ...(tracing ? { tracing } : {}) })),
    webPaths(root).dist,
  );
  const url = await listen(app, port);
  if (settings.archive !== undefined) startSweeper(settings.archive, { ...clients, tableName: config.tableName, bucket: config.bucket });

  const token = await signLocalToken(secret, settings.defaultOwner);
  process.stdout.write(welcome(settings, { url, token, dynamodb, s3 }).join('\n'));
}

/** The settings of the environment; one that is not valid (`PORT=abc`) is a sentence, not a stack trace. */
function readSettings(): LocalSettings {
  try {
    return localSettings(root);
  } catch (error) {
    throw new StartupError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** The table and the bucket, created when absent. */
async function createStorage(clients: AwsClients, config: ServiceConfig): Promise<void> {
  await createTable({ client: clients.dynamo, tableName: config.tableName });
  await clients.s3.send(new CreateBucketCommand({ Bucket: config.bucket })).catch((error: unknown) => {
    const name = error instanceof Error ? error.name : '';
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  });
}

/** Serves `app` on 127.0.0.1:`port` (stopped with the rest); its URL once it listens. */
async function listen(app: { fetch: (request: Request) => Response | Promise<Response> }, port: number): Promise<string> {
  const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
  await new Promise<void>((resolveListening, reject) => {
    server.once('listening', resolveListening);
    server.once('error', reject);
  });
  running.push({
    name: 'HTTP server',
    stop: () =>
      new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Runs the archive sweeper every `sweepSeconds`, as the scheduled function does on AWS (stopped with the rest). */
function startSweeper(archive: NonNullable<LocalSettings['archive']>, storage: Omit<Parameters<typeof runArchiveSweep>[0], 'archiveAfterMs' | 'log'>): void {
  const deps = { ...storage, archiveAfterMs: archive.afterMs, log: (message: string, error: unknown) => say(`${message}: ${String(error)}`) };
  const sweeper = startArchiveSweeper(
    () => runArchiveSweep(deps),
    archive.sweepSeconds * 1000,
    (summary, error) => {
      if (summary === null) say(`archive sweep failed: ${String(error)}`);
      else if (summary.archived + summary.finished > 0) say(`archive sweep: ${summary.archived} sessions archived, ${summary.finished} archives finished`);
      if (summary !== null && summary.indexed > 0) say(`archive sweep: ${summary.indexed} sessions of an older table put into the activity index`);
    },
  );
  running.push({ name: 'archive sweeper', stop: () => sweeper.stop() });
}

/** What `npm start` says once everything runs: where, as whom, with which model, and how to try it. */
function welcome(settings: LocalSettings, at: { url: string; token: string; dynamodb: string; s3: string }): string[] {
  const { config, archive } = settings;
  const { url, token } = at;
  const provider = config.provider;
  const model = providerResolver(provider)({}).model;
  return [
    '',
    `panto: listening on ${url}`,
    '',
    provider.provider === 'offline'
      ? `  provider  offline (${model}): ${provider.reason}, so replies are canned, not a model's.\n` +
        '            Set ANTHROPIC_API_KEY or OPENAI_API_KEY (and PANTO_PROVIDER / PANTO_MODEL) for a real model.'
      : `  provider  ${provider.provider} (${model}), because ${provider.reason}`,
    `  data      ${displayDataDir(settings.dataDir, process.cwd())}/ (DynamoDB table ${config.tableName} at ${at.dynamodb}, bucket ${config.bucket} at ${at.s3})`,
    `  owner     ${settings.defaultOwner}; token valid 30 days (another owner: npm run -s token -- <owner>)`,
    `  browser   ${url}/#token=${token}`,
    `  reference ${url}/reference#token=${token} (OpenAPI: ${url}/openapi.json)`,
    `  a2a       ${url}/.well-known/agent-card.json (Agent Card; JSON-RPC at ${url}/a2a, the same bearer token)`,
    ...(archive === undefined
      ? []
      : [`  archive   sessions idle ${formatDays(archive.afterMs)} go to s3://${config.bucket}/archive/, swept every ${archive.sweepSeconds} s`]),
    ...(config.mcp.servers.length > 0
      ? [`  mcp       ${config.mcp.servers.map((server) => `${server.name} (${displayURL(server.url)})`).join(', ')}: connected by the first turn`]
      : []),
    '',
    ...curlExample(url, token),
    '',
    'Ctrl-C stops the server and the emulators. API guide: docs/api.md',
    '',
  ];
}

/**
 * Shell lines that work as pasted (bash, zsh): the session id is taken from the first answer
 * with node, which is there wherever `npm start` runs. They export what every example of
 * docs/api.md uses — `PANTO_STREAM` too, the streamed routes' base, this same server here.
 */
function curlExample(url: string, token: string): string[] {
  return [
    `export PANTO=${url} PANTO_STREAM=${url} PANTO_TOKEN=${token}`,
    `ID=$(curl -s -X POST $PANTO/sessions -H "authorization: Bearer $PANTO_TOKEN" -d '{}' | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).id')`,
    `curl -s -X POST $PANTO/sessions/$ID/messages -H "authorization: Bearer $PANTO_TOKEN" -d '{"text":"hello"}'`,
  ];
}

function formatDays(ms: number): string {
  const days = ms / 86_400_000;
  return days >= 1 ? `${days} days` : `${Math.round(ms / 1000)} s`;
}

async function launch(started: Promise<{ endpoint: string; stop(): Promise<void> }>, name: string): Promise<string> {
  const emulator = await started;
  running.push({ name, stop: () => emulator.stop() });
  return emulator.endpoint;
}

/** Stops what was started, newest first; every piece is tried even if one fails. */
async function shutdown(): Promise<void> {
  stopping ??= (async () => {
    for (const each of running.reverse()) {
      await each.stop().catch((error: unknown) => say(`could not stop ${each.name}: ${String(error)}`));
    }
  })();
  return stopping;
}

function say(text: string): void {
  process.stderr.write(`panto: ${text}\n`);
}

let stopRequestedAt = 0;

function stop(reason: string): void {
  if (stopping) {
    // Ctrl-C reaches this process twice: from the terminal, and forwarded by npm. Only a
    // second Ctrl-C, later, means "now".
    if (Date.now() - stopRequestedAt < 1000) return;
    say('stopping now');
    process.exit(130);
  }
  stopRequestedAt = Date.now();
  say(`stopping (${reason}) …`);
  void shutdown().then(() => process.exit(0));
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
// A signal sent to `npm start` alone (not to its process group, as Ctrl-C is) ends npm
// without reaching this process: notice being orphaned, and stop too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent && !stopping) stop('parent process exited');
}, 500).unref();

main().catch(async (error: unknown) => {
  // A problem the user can fix is its message alone; anything else keeps its stack.
  if (error instanceof StartupError) say(error.message);
  else say(error instanceof Error ? (error.stack ?? error.message) : String(error));
  await shutdown();
  process.exit(1);
});
