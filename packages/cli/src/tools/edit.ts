import type { Tool, ToolOutput } from '@panto/core';
import { readFile, writeFile } from 'node:fs/promises';
import { describeFsError, relativeToCwd, errorResult, requiredString, resolvePath, type ToolInput } from './input.js';

export interface EditToolOptions {
  cwd: string;
}

/**
 * `edit { path, old_text, new_text }`: replaces the one exact occurrence of `old_text`.
 * Absent or repeated text is an error result that says how many matches there were, and
 * the file is left as it was.
 *
 * @example
 * createEditTool({ cwd }).execute({ path: 'a.ts', old_text: 'let x = 1', new_text: 'const x = 1' }, context);
 */
export function createEditTool(options: EditToolOptions): Tool {
  return {
    name: 'edit',
    description:
      'Replace one exact occurrence of old_text in a file with new_text. old_text must match the file ' +
      'exactly (whitespace and indentation included) and occur exactly once: include enough surrounding ' +
      'lines to make it unique. Read the file first. Relative paths resolve against the working folder.',
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'The file to edit.' },
        old_text: { type: 'string', description: 'The exact text to replace; it must occur exactly once.' },
        new_text: { type: 'string', description: 'The text to put in its place.' },
      },
      required: ['path', 'old_text', 'new_text'],
    },
    execute: async (input) => edit(options.cwd, input),
  };
}

async function edit(cwd: string, input: ToolInput): Promise<ToolOutput> {
  const path = requiredString(input, 'path');
  let oldText = requiredString(input, 'old_text');
  let newText = requiredString(input, 'new_text', { allowEmpty: true });
  const absolute = resolvePath(cwd, path);
  const shown = relativeToCwd(cwd, absolute);
  if (oldText === newText) return errorResult('old_text and new_text are the same; nothing to change');

  let content: string;
  try {
    content = await readFile(absolute, 'utf8');
  } catch (error) {
    return errorResult(describeFsError(error, shown));
  }

  let matches = findAll(content, oldText);
  // Models write "\n"; a file with Windows line endings has "\r\n". Match what they meant.
  if (matches.length === 0 && content.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r')) {
    const crlf = oldText.replaceAll('\n', '\r\n');
    const crlfMatches = findAll(content, crlf);
    if (crlfMatches.length > 0) {
      oldText = crlf;
      newText = newText.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n');
      matches = crlfMatches;
    }
  }
  if (matches.length === 0) {
    return errorResult(
      `old_text was not found in ${shown} (0 matches). It must match exactly, whitespace and indentation included; read the file again and copy the text.`,
    );
  }
  if (matches.length > 1) {
    const lines = matches.slice(0, 10).map((index) => lineOf(content, index));
    return errorResult(
      `old_text occurs ${matches.length} times in ${shown} (at lines ${lines.join(', ')}${matches.length > 10 ? ', …' : ''}); ` +
        'it must be unique. Include more of the surrounding text. Nothing was changed.',
    );
  }
  const at = matches[0]!;
  const updated = content.slice(0, at) + newText + content.slice(at + oldText.length);
  try {
    await writeFile(absolute, updated);
  } catch (error) {
    return errorResult(describeFsError(error, shown));
  }
  const removed = countLines(oldText);
  const added = countLines(newText);
  return `Edited ${shown}: replaced ${removed} line(s) at line ${lineOf(content, at)} with ${added} line(s)`;
}

/** Every index where `needle` starts, overlapping matches included ("aa" occurs twice in "aaa"). */
export function findAll(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let index = haystack.indexOf(needle); index !== -1; index = haystack.indexOf(needle, index + 1)) {
    found.push(index);
  }
  return found;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function countLines(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
