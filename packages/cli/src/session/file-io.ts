/**
 * The file work the session code shares: what a path is, the committed part of a session
 * file, and writing a file whole or not at all.
 */
import type { decodeSession } from '@panto/core/store-kit';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    // Missing or unreadable: not a file we can use.
    return false;
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    // Missing or unreadable: not a folder we can use.
    return false;
  }
}

/** A session file's bytes without a torn tail (what a crash mid-append left), ending in a line break. */
export function committedPart(bytes: Buffer, decoded: ReturnType<typeof decodeSession>): Buffer {
  return Buffer.concat([bytes.subarray(0, decoded.committedBytes), Buffer.from(decoded.needsNewline ? '\n' : '')]);
}

/**
 * Writes `bytes` to `path` whole or not at all: into a temporary file beside it, renamed into
 * place. The folder is created (owner only) if missing; the file is the owner's alone (a
 * session's prompts and tool output). `flag: 'wx'` refuses a temporary file that exists.
 */
export async function writeWholeFile(path: string, bytes: Buffer, options: { flag?: 'wx' } = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, bytes, { mode: 0o600, ...options });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
