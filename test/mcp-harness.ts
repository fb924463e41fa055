/**
 * The MCP "everything" server (@modelcontextprotocol/server-everything, a real server none
 * of us wrote), run offline from node_modules: over stdio as a command for a config, and
 * over Streamable HTTP on loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** The server's entry point (its `mcp-server-everything` bin). */
export const EVERYTHING = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');

const LOOPBACK = fileURLToPath(new URL('./support/loopback-listen.mjs', import.meta.url));

/** The `mcpServers` entry that starts the server over stdio. */
export function everythingStdio(): { command: string; args: string[] } {
  return { command: process.execPath, args: [EVERYTHING, 'stdio'] };
}

export interface RunningHTTPServer {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts the server's Streamable HTTP entry on 127.0.0.1 (on `port`, or a free one). */
export async function startEverythingHTTP(port = 0): Promise<RunningHTTPServer> {
  const child = spawn(process.execPath, ['--import', LOOPBACK, EVERYTHING, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const bound = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the everything server did not listen within 20 s:\n${output}`)), 20_000);
    const check = (): void => {
      const match = /loopback-listen: (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stderr?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the everything server exited (${code}) before listening:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    port: bound,
    child,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}
