/** What the commands read and write through (`CommandIO`), and that IO on this process: its streams, its environment, and a password read from stdin or asked for. */
import type { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';

/** What `npm run user` / `npm run token -- --stage` read and write through; tests give their own. */
export interface CommandIO {
  root: string;
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The password, when one is to be read: stdin's first line (`--password-stdin`), or a prompt. */
  readPassword: (prompt: string, fromStdin: boolean) => Promise<string>;
  /** The Cognito client for a region (the SDK's default credentials). */
  cognito?: (region: string) => CognitoIdentityProviderClient;
}

/** This process's IO. */
export function processIO(root: string): CommandIO {
  return {
    root,
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readPassword: (prompt, fromStdin) => (fromStdin || !process.stdin.isTTY ? firstLine() : askHidden(prompt)),
  };
}

/** The first line of stdin (a password piped in: `printf %s "$PW" | npm run …`). */
async function firstLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  const line = text.split(/\r?\n/)[0] ?? '';
  if (line === '') throw new Error('no password on stdin');
  return line;
}

/** Asks on the terminal without echoing what is typed. */
function askHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    let typed = '';
    const done = (error?: Error): void => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (chunk: Buffer): void => {
      for (const character of chunk.toString('utf8')) {
        if (character === '\r' || character === '\n') {
          done();
          return;
        }
        if (character === '\u0003') {
          done(new Error('cancelled'));
          return;
        }
        if (character === '\u007f' || character === '\b') typed = typed.slice(0, -1);
        else typed += character;
      }
    };
    stdin.on('data', onData);
  });
}
