import type { Tool, ToolOutput } from '@panto/core';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describeFsError, relativeToCwd, errorResult, requiredString, resolvePath, type ToolInput } from './input.js';
import { formatSize, linesOf } from './truncate.js';

export interface WriteToolOptions {
  cwd: string;
}

/**
 * `write { path, content }`: creates or overwrites a file, creating its parent folders.
 *
 * @example
 * createWriteTool({ cwd }).execute({ path: 'notes/todo.md', content: '- ship it\n' }, context);
 */
export function createWriteTool(options: WriteToolOptions): Tool {
  return {
    name: 'write',
    description:
      'Create a file, or overwrite it entirely, with the given content. Parent folders are created. ' +
      'To change part of an existing file, use edit instead. Relative paths resolve against the working folder.',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file to write.' },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
      required: ['path', 'content'],
    },
    execute: async (input) => write(options.cwd, input),
  };
}

async function write(cwd: string, input: ToolInput): Promise<ToolOutput> {
  const path = requiredString(input, 'path');
  const content = requiredString(input, 'content', { allowEmpty: true });
  const absolute = resolvePath(cwd, path);
  const shown = relativeToCwd(cwd, absolute);
  let existed = false;
  try {
    const info = await stat(absolute);
    if (info.isDirectory()) return errorResult(`${shown} is a directory; it was not overwritten`);
    existed = true;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') return errorResult(describeFsError(error, shown));
  }
  try {
    await mkdir(dirname(absolute), { recursive: true });
    await writeFile(absolute, content);
  } catch (error) {
    return errorResult(describeFsError(error, shown));
  }
  const bytes = Buffer.byteLength(content);
  return `${existed ? 'Overwrote' : 'Created'} ${shown} (${formatSize(bytes)}, ${linesOf(content).length} lines)`;
}
