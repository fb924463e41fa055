/**
 * Where a running local stack (`npm start`) is: written to `<PANTO_DATA_DIR>/stack.json`
 * once its emulators are up, so that other commands on the same data folder (`npm run user
 * -- limits|usage`) reach the same table.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface LocalStack {
  /** DynamoDB Local's endpoint, and the table in it. */
  dynamodb: string;
  tableName: string;
}

export function localStackFile(dataDir: string): string {
  return join(dataDir, 'stack.json');
}

export async function writeLocalStack(dataDir: string, stack: LocalStack): Promise<void> {
  await writeFile(localStackFile(dataDir), `${JSON.stringify(stack, null, 2)}\n`);
}

/** The stack `npm start` last ran on `dataDir`; null when it never did. */
export async function readLocalStack(dataDir: string): Promise<LocalStack | null> {
  try {
    const stack = JSON.parse(await readFile(localStackFile(dataDir), 'utf8')) as Partial<LocalStack>;
    return typeof stack.dynamodb === 'string' && typeof stack.tableName === 'string' ? { dynamodb: stack.dynamodb, tableName: stack.tableName } : null;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return null;
    throw error;
  }
}
