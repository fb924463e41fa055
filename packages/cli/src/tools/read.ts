import type { Tool, ToolOutput } from '@panto/core';
import { readFile, stat } from 'node:fs/promises';
import { describeFsError, relativeToCwd, errorResult, optionalPositiveInteger, requiredString, resolvePath, type ToolInput } from './input.js';
import { DEFAULT_LIMITS, formatSize, linesOf, type Limits } from './truncate.js';

/** Files bigger than this are not read whole; the model is told to use bash (head, sed, grep). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** A longer line is cut, with a note, so one minified line cannot eat the whole result. */
const MAX_LINE_CHARS = 2000;

export interface ReadToolOptions {
  cwd: string;
  limits?: Limits;
}

/**
 * `read { path, offset?, limit? }`: a text file with line numbers. `offset` is the first
 * line to show (1-based), `limit` how many lines; the result is capped (2,000 lines /
 * 50 KB by default) and says how to read on.
 *
 * @example
 * createReadTool({ cwd }).execute({ path: 'src/main.ts', offset: 10, limit: 5 }, context);
 */
export function createReadTool(options: ReadToolOptions): Tool {
  const limits = options.limits ?? DEFAULT_LIMITS;
  return {
    name: 'read',
    description:
      'Read a text file. Lines are numbered from 1. Use offset (first line to show, 1-based) and limit ' +
      `(number of lines) to page through long files; at most ${limits.maxLines} lines or ` +
      `${formatSize(limits.maxBytes)} are returned at once. Relative paths resolve against the working folder.`,
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file to read.' },
        offset: { type: 'integer', minimum: 1, description: 'The first line to return (1-based). Default 1.' },
        limit: { type: 'integer', minimum: 1, description: 'How many lines to return at most.' },
      },
      required: ['path'],
    },
    execute: async (input) => read(options.cwd, input, limits),
  };
}

async function read(cwd: string, input: ToolInput, limits: Limits): Promise<ToolOutput> {
  const path = requiredString(input, 'path');
  const offset = optionalPositiveInteger(input, 'offset') ?? 1;
  const limit = optionalPositiveInteger(input, 'limit');
  const absolute = resolvePath(cwd, path);
  const shown = relativeToCwd(cwd, absolute);

  let size: number;
  try {
    const info = await stat(absolute);
    if (info.isDirectory()) return errorResult(`${shown} is a directory, not a file (list it with bash, e.g. ls -la)`);
    size = info.size;
  } catch (error) {
    return errorResult(describeFsError(error, shown));
  }
  if (size > MAX_FILE_BYTES) {
    return errorResult(`${shown} is ${formatSize(size)}, too big to read whole; use bash (head, tail, sed -n, grep) to read parts of it`);
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(absolute);
  } catch (error) {
    return errorResult(describeFsError(error, shown));
  }
  if (bytes.subarray(0, 8192).includes(0)) {
    return errorResult(`${shown} looks like a binary file (${formatSize(bytes.length)}); it was not read`);
  }
  const lines = linesOf(bytes.toString('utf8'));
  if (lines.length === 0) return `(${shown} is empty)`;
  if (offset > lines.length) {
    return errorResult(`offset ${offset} is past the end of ${shown}, which has ${lines.length} lines`);
  }

  const maxLines = Math.min(limit ?? limits.maxLines, limits.maxLines);
  const width = String(Math.min(lines.length, offset + maxLines - 1)).length;
  const out: string[] = [];
  let outBytes = 0;
  let cutLines = 0;
  let last = offset - 1;
  for (let i = offset - 1; i < lines.length && out.length < maxLines; i++) {
    let line = lines[i]!;
    if (line.length > MAX_LINE_CHARS) {
      line = `${line.slice(0, MAX_LINE_CHARS)} … [line cut: ${line.length} characters]`;
      cutLines++;
    }
    const numbered = `${String(i + 1).padStart(width)}\t${line}`;
    const size = Buffer.byteLength(numbered) + 1;
    if (outBytes + size > limits.maxBytes && out.length > 0) break;
    out.push(numbered);
    outBytes += size;
    last = i + 1;
  }

  const notes: string[] = [];
  if (last < lines.length) {
    const reason = limit !== undefined && out.length === limit ? '' : ` (output capped at ${limits.maxLines} lines / ${formatSize(limits.maxBytes)})`;
    notes.push(`[Showing lines ${offset}–${last} of ${lines.length}${reason}. Use offset=${last + 1} to read on.]`);
  }
  if (cutLines > 0) notes.push(`[${cutLines} line(s) longer than ${MAX_LINE_CHARS} characters were cut.]`);
  return [out.join('\n'), ...notes].join('\n');
}
