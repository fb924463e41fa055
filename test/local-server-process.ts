/**
 * `scripts/start.ts` — the real local server, as `npm start` runs it — in its own process, on
 * a free port: the one spawn behind the end-to-end and browser tests (local-stack-harness.ts)
 * and the benches that measure the local stack. Nothing here needs vitest, so a bench can
 * import it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Settings of this process's own environment that would change what the server does: the caller sets the ones it wants. */
const INHERITED_SETTINGS = [
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_BASE_URL',
  'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
  'PANTO_PROVIDER',
  'PANTO_MODEL',
  'PANTO_S3_ENDPOINT',
  'PANTO_LEASE_RENEW_MS',
  'PANTO_OWNER',
  'PORT',
];

export interface LocalServerProcess {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The browser sign-in link it printed (`<url>/#token=…`). */
  signInLink: string;
  /** The token of that link, for its default owner (`PANTO_OWNER`). */
  token: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Sends `signal` (SIGINT: a clean stop, as Ctrl-C) and waits for the exit; nothing when it already exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts the server on a free port with `env` over this process's environment (less
 * {@link INHERITED_SETTINGS}; a setting `undefined` in `env` is left out) and `nodeArgs`
 * before node's others, and waits until it listens.
 */
export async function spawnLocalServer(env: NodeJS.ProcessEnv, nodeArgs: readonly string[] = []): Promise<LocalServerProcess> {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_SETTINGS) delete inherited[name];
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', '--conditions=@panto/source', 'scripts/start.ts'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...inherited, PORT: '0', ...env },
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
    token: signInLink.slice(signInLink.indexOf('#token=') + '#token='.length),
    output: () => text,
    async stop(signal = 'SIGINT') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
      child.kill(signal);
      await exited;
    },
  };
}
