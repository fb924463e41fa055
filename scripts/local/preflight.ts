/**
 * Checks `npm start` makes before it starts anything, so that the usual ways a first run
 * fails end in one sentence that says what to do, not in a stack trace 10 s later: Java
 * missing for DynamoDB Local, or the HTTP port taken.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative } from 'node:path';
import { assertPortFree } from './child-process.js';

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

/**
 * Throws {@link StartupError} when the local stack cannot start: `port` (the HTTP server's;
 * 0 = any) already in use, or no Java while DynamoDB Local is to be started here.
 */
export async function preflight(options: { port: number; startsDynamoDB: boolean; env: Readonly<Record<string, string | undefined>> }): Promise<void> {
  if (options.port !== 0) {
    try {
      await assertPortFree(options.port);
    } catch (error) {
      if (!(error instanceof Error && error.message.includes('already in use'))) throw error;
      throw new StartupError(
        `port ${options.port} is already in use (another npm start?). Stop what listens there, or choose another port: PORT=${options.port + 1} npm start (PORT=0 picks a free one).`,
        { cause: error },
      );
    }
  }
  if (!options.startsDynamoDB) return;
  const java = findJava(options.env);
  if (java === undefined) throw new StartupError(javaMissingMessage(options.env));
  const version = javaVersion(java);
  if (version !== undefined && version < MIN_JAVA) {
    throw new StartupError(javaMissingMessage(options.env).replace(/and there is .*\./, `and ${java} is Java ${version}.`));
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
