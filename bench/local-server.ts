/**
 * The local stack's server (`npm start`: scripts/start.ts in its own process) for a bench: on
 * a free port, its data in a folder of the bench's, started as `npm start` starts it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Settings of this process's environment that would change what the server does (a bench sets its own). */
const INHERITED = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'PANTO_PROVIDER',
  'PANTO_MODEL',
  'PANTO_S3_ENDPOINT',
  'PORT',
];

export interface LocalServer {
  child: ChildProcess;
  url: string;
  /** The token it printed for its default owner (`PANTO_OWNER`). */
  token: string;
  /** Everything it wrote so far, stdout and stderr. */
  output(): string;
  /** Stops it as Ctrl-C does, and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * scripts/start.ts as `npm start` runs it, on a free port, its data in `dataDir`, with `env`
 * over this process's environment and `nodeArgs` before node's others; once it listens.
 */
export async function startLocalServer(dataDir: string, env: NodeJS.ProcessEnv, nodeArgs: readonly string[] = []): Promise<LocalServer> {
  const inherited = { ...process.env };
  for (const name of INHERITED) delete inherited[name];
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', '--conditions=@panto/source', 'scripts/start.ts'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...inherited, PORT: '0', PANTO_DATA_DIR: dataDir, PANTO_S3_PORT: '0', ...env },
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const { url, token } = await new Promise<{ url: string; token: string }>((resolveStarted, reject) => {
    const check = (): void => {
      const link = /browser +(http:\/\/127\.0\.0\.1:\d+)\/#token=([\w.-]+)/.exec(text);
      if (link?.[1] !== undefined && link[2] !== undefined) resolveStarted({ url: link[1], token: link[2] });
    };
    child.stdout?.on('data', check);
    child.once('exit', (code, signal) => reject(new Error(`the server exited (${code ?? signal}) before listening:\n${text}`)));
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
    child.kill('SIGINT');
    await exited;
  };
  return { child, url, token, output: () => text, stop };
}
