/**
 * Checks `npm start` makes before it starts anything, so that the usual ways a first run
 * fails end in one sentence that says what to do, not in a stack trace 10 s later: Java
 * missing for DynamoDB Local, or the HTTP port (or a pinned emulator port) taken.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import { assertPortFree } from './child-process.js';
import { describePortHolder } from './port-holder.js';

/** A problem the user can fix, told in words: `npm start` prints the message alone and exits 1. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}

/**
 * The `java` DynamoDB Local would run — `$JAVA_HOME/bin/java` when JAVA_HOME is set, else the
 * first executable `java` on PATH — or undefined when there is none.
 */
export function findJava(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.JAVA_HOME) {
    const java = join(env.JAVA_HOME, 'bin', 'java');
    return isExecutableFile(java) ? java : undefined;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const java = join(dir, 'java');
    if (isExecutableFile(java)) return java;
  }
  return undefined;
}

/** What to do when there is no Java: install it, or bring a DynamoDB of your own. */
export function javaMissingMessage(env: Readonly<Record<string, string | undefined>>): string {
  const where = env.JAVA_HOME ? `JAVA_HOME is ${env.JAVA_HOME} but it has no bin/java` : 'no `java` on PATH';
  return [
    `DynamoDB Local needs Java 17 or later, and there is ${where}.`,
    'Install a Java runtime:  sudo apt-get install openjdk-17-jre-headless   (Debian/Ubuntu)',
    '                         brew install openjdk@17                        (macOS)',
    'or use a DynamoDB that already runs, e.g.',
    '  docker run -d -p 8000:8000 amazon/dynamodb-local',
    '  PANTO_DYNAMODB_ENDPOINT=http://127.0.0.1:8000 npm start',
  ].join('\n');
}

/** What `npm start` is about to start, for {@link preflight}. */
export interface PreflightOptions {
  /** The HTTP server's port (`PORT`; 0 = any). */
  port: number;
  /** The ports pinned for the emulators it starts (`PANTO_DYNAMODB_PORT`, `PANTO_S3_PORT`; 0 = any, or not started). */
  emulatorPorts?: { dynamodb: number; s3: number };
  startsDynamoDB: boolean;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Throws {@link StartupError} when the local stack cannot start: `port` (the HTTP server's;
 * 0 = any) or a pinned emulator port already in use — naming the program that holds it when
 * it can be told —, two of them the same, or no Java while DynamoDB Local is to be started here.
 */
export async function preflight(options: PreflightOptions): Promise<void> {
  const pinned = [
    { name: 'PORT', port: options.port, what: 'the HTTP server' },
    { name: 'PANTO_DYNAMODB_PORT', port: options.emulatorPorts?.dynamodb ?? 0, what: 'DynamoDB Local' },
    { name: 'PANTO_S3_PORT', port: options.emulatorPorts?.s3 ?? 0, what: 'the S3 emulator' },
  ].filter((each) => each.port !== 0);
  for (const [index, each] of pinned.entries()) {
    const same = pinned.slice(0, index).find((other) => other.port === each.port);
    if (same !== undefined) throw new StartupError(`${same.name} and ${each.name} are both ${each.port}: ${same.what} and ${each.what} need a port each.`);
    await assertFree(each.name, each.port);
  }
  if (!options.startsDynamoDB) return;
  const java = findJava(options.env);
  if (java === undefined) throw new StartupError(javaMissingMessage(options.env));
  const version = javaVersion(java);
  if (version !== undefined && version < MIN_JAVA) {
    throw new StartupError(javaMissingMessage(options.env).replace(/and there is .*\./, `and ${java} is Java ${version}.`));
  }
}

/** Throws {@link StartupError} when `port` is taken, saying what holds it when that can be told, and what to do. */
async function assertFree(name: string, port: number): Promise<void> {
  try {
    await assertPortFree(port);
  } catch (error) {
    if (!(error instanceof Error && error.message.includes('already in use'))) throw error;
    const holder = await describePortHolder(port);
    const who = holder === undefined ? (name === 'PORT' ? ' (another npm start?)' : '') : ` by ${holder}`;
    const side = holder?.startsWith('a Vite') === true ? ' npm start and npx sst dev run side by side when npm start has another port.' : '';
    const choose = name === 'PORT' ? `PORT=${port + 1} npm start (PORT=0 picks a free one)` : `${name}=${port + 1} npm start, or unset ${name} for a free port`;
    const setting = name === 'PORT' ? '' : `${name}: `;
    throw new StartupError(`${setting}port ${port} is already in use${who}.${side} Stop what listens there, or choose another port: ${choose}.`, {
      cause: error,
    });
  }
}

/** DynamoDB Local 3.x needs Java 17. */
const MIN_JAVA = 17;

/**
 * The major version of a `java` (`java -version` prints `openjdk version "17.0.15"`, or
 * `"1.8.0_392"` for Java 8), or undefined when it does not say.
 */
export function javaVersion(java: string): number | undefined {
  const result = spawnSync(java, ['-version'], { encoding: 'utf8', timeout: 10_000 });
  return parseJavaVersion(`${result.stderr ?? ''}\n${result.stdout ?? ''}`);
}

export function parseJavaVersion(text: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(text);
  if (!match) return undefined;
  const major = Number(match[1]);
  return major === 1 && match[2] !== undefined ? Number(match[2]) : major;
}

/** The data folder as `npm start` prints it: relative to `cwd` when inside it, else absolute. */
export function displayDataDir(dataDir: string, cwd: string): string {
  const path = relative(cwd, dataDir);
  if (path === '') return '.';
  return path.startsWith('..') || isAbsolute(path) ? dataDir : path;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    // Missing or not executable: not this program.
    return false;
  }
}
