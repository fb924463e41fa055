/**
 * How panto's tool calls look to an ACP client: a kind (the client's icon), a title, the
 * files they touch (the client follows along), and content — a diff for `edit` and `write`,
 * the command for `bash`, and the result once the call ran.
 */
import type { ToolCallContent, ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import type { ToolCallBlock, ToolResultMessage } from '@panto/core';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { resolvePath } from '../tools/input.js';
import { describeToolCall } from '../ui/render-turn.js';

/** A file's current text is shown in a `write`'s diff up to this size. */
export const MAX_DIFF_FILE_BYTES = 256 * 1024;

/** The kind of a tool, by its name: the client chooses its icon by it. */
export function toolKind(name: string): ToolKind {
  switch (name) {
    case 'read':
      return 'read';
    case 'write':
    case 'edit':
      return 'edit';
    case 'bash':
      return 'execute';
    default:
      return 'other';
  }
}

/** The call in a few words (`read src/a.ts:10+20`, `bash $ npm test`), control characters escaped. */
export function toolTitle(call: ToolCallBlock): string {
  return describeToolCall(call);
}

/** The file a `read`, `write` or `edit` touches (absolute), with the first line read; [] for other calls. */
export function toolLocations(call: ToolCallBlock, cwd: string): ToolCallLocation[] {
  const path = stringInput(call, 'path');
  if (path === undefined || !['read', 'write', 'edit'].includes(call.name)) return [];
  const offset = call.input.offset;
  return [{ path: resolvePath(cwd, path), ...(call.name === 'read' && typeof offset === 'number' ? { line: offset } : {}) }];
}

/** What can be shown of a call before it runs without reading a file: an `edit`'s diff, a `bash` command. */
export function contentBeforeRun(call: ToolCallBlock, cwd: string): ToolCallContent[] {
  const path = stringInput(call, 'path');
  const oldText = stringInput(call, 'old_text');
  const newText = stringInput(call, 'new_text');
  if (call.name === 'edit' && path !== undefined && oldText !== undefined && newText !== undefined) {
    return [{ type: 'diff', path: resolvePath(cwd, path), oldText, newText }];
  }
  const command = stringInput(call, 'command');
  if (call.name === 'bash' && command !== undefined) return [text(fenced(command, 'sh'))];
  return [];
}

/**
 * What a call will do, as the client shows it while asking or running: {@link contentBeforeRun},
 * and for `write` a diff against the file's current text — read only for a text file inside
 * the working folder (its real path, links followed) of at most {@link MAX_DIFF_FILE_BYTES};
 * another existing file is said to be replaced, unshown.
 */
export async function contentOfCall(call: ToolCallBlock, cwd: string): Promise<ToolCallContent[]> {
  const path = stringInput(call, 'path');
  const content = stringInput(call, 'content');
  if (call.name !== 'write' || path === undefined || content === undefined) return contentBeforeRun(call, cwd);
  const absolute = resolvePath(cwd, path);
  const current = await currentText(absolute, cwd);
  if (current.type === 'shown') return [{ type: 'diff', path: absolute, oldText: current.text, newText: content }];
  const diff: ToolCallContent = { type: 'diff', path: absolute, oldText: null, newText: content };
  return current.type === 'absent' ? [diff] : [diff, text(`This replaces an existing file, whose current content is not shown (${current.why}).`)];
}

/** The content of a finished call: the diff of an `edit` / `write` that succeeded, then the result's text (and images). */
export function contentAfterRun(call: ToolCallBlock, result: ToolResultMessage, before: readonly ToolCallContent[]): ToolCallContent[] {
  const diffs = result.is_error ? [] : before.filter((item) => item.type === 'diff');
  const output = result.content === '' ? [] : [text(call.name === 'bash' || call.name === 'read' ? fenced(result.content) : result.content)];
  const images: ToolCallContent[] = (result.images ?? []).map((image) => ({
    type: 'content',
    content: { type: 'image', data: image.data, mimeType: image.media_type },
  }));
  return [...diffs, ...output, ...images];
}

function text(value: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: value } };
}

/** `value` in a markdown code fence longer than any run of backticks inside it. */
export function fenced(value: string, language = ''): string {
  const longest = Math.max(0, ...Array.from(value.matchAll(/`+/g), (match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${value.endsWith('\n') ? value : `${value}\n`}${fence}`;
}

function stringInput(call: ToolCallBlock, name: string): string | undefined {
  const value = call.input[name];
  return typeof value === 'string' ? value : undefined;
}

type CurrentText = { type: 'shown'; text: string } | { type: 'absent' } | { type: 'unshown'; why: string };

async function currentText(path: string, cwd: string): Promise<CurrentText> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { type: 'absent' } : { type: 'unshown', why: 'it cannot be read' };
  }
  const inside = relative(await realpath(cwd).catch(() => cwd), real);
  if (inside === '' || inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    return { type: 'unshown', why: 'it is outside the working folder' };
  let file: Awaited<ReturnType<typeof open>> | undefined;
  try {
    file = await open(real, 'r');
    const info = await file.stat();
    if (!info.isFile()) return { type: 'unshown', why: 'it is not a regular file' };
    if (info.size > MAX_DIFF_FILE_BYTES) return { type: 'unshown', why: 'it is too large to show' };
    const bytes = await file.readFile();
    if (bytes.includes(0)) return { type: 'unshown', why: 'it is not text' };
    return { type: 'shown', text: bytes.toString('utf8') };
  } catch {
    // Only what the user sees is lost: the write itself reports what is wrong with the file.
    return { type: 'unshown', why: 'it cannot be read' };
  } finally {
    await file?.close();
  }
}
