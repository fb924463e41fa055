/**
 * `npm run user -- …` (scripts/deployed/commands.ts) on a data folder whose stack.json names
 * a test's table, as `npm start` writes it: the operator's `limits` and `usage` commands
 * against the run's DynamoDB Local, in process.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { runUserCommand } from '../../scripts/deployed/commands.js';
import { writeLocalStack } from '../../scripts/local/stack-file.js';

/** Runs the command on `tableName`; resolves with its exit code and everything it wrote. */
export async function userCommand(tableName: string, argv: string[]): Promise<{ code: number; out: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'panto-user-'));
  await writeLocalStack(dataDir, { dynamodb: inject('dynamoEndpoint'), tableName });
  let out = '';
  const code = await runUserCommand(argv, {
    root: process.cwd(),
    env: { PANTO_DATA_DIR: dataDir },
    stdout: (text) => (out += text),
    stderr: (text) => (out += text),
    readPassword: async () => '',
  });
  return { code, out };
}
