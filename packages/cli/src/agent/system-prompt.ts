import type { Agent } from '@panto/core';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';

/**
 * The default system prompt of the coding agent. It names the working folder and the
 * tools, and holds nothing that changes between runs in the same folder (no date), so a
 * resumed session does not get a new system message every time.
 */
export function defaultSystemPrompt(cwd: string): string {
  return [
    "You are panto, a coding agent. You work in a folder on the user's machine, through tools.",
    '',
    `Working folder: ${cwd}`,
    'Relative paths resolve against it.',
    '',
    'Tools:',
    '- read { path, offset?, limit? }: read a text file, with line numbers; offset is the first line (1-based), limit the number of lines.',
    '- write { path, content }: create or overwrite a whole file; parent folders are created.',
    '- edit { path, old_text, new_text }: replace the one exact occurrence of old_text in a file.',
    '- bash { command, timeout_ms? }: run a shell command in the working folder (stdin closed, output capped).',
    '',
    'How to work:',
    '- Look before you act: read the files you change, and search the code (bash: rg, grep, ls) rather than guess.',
    '- Prefer edit for changes to existing files; keep changes small and in the style of the code around them.',
    '- Check your work: run the tests, the type checker or the build when the project has them.',
    '- Do not run destructive commands (deleting files, rewriting git history) unless the user asked for it.',
    '- Answer concisely. When you changed files, say which and why.',
  ].join('\n');
}

/**
 * The system prompt the command line asks for: `--system TEXT`, `--system @FILE` (read
 * relative to `cwd`), or the default. An unreadable file is a usage error.
 */
export async function resolveSystemPrompt(value: string | undefined, cwd: string): Promise<string> {
  if (value === undefined) return defaultSystemPrompt(cwd);
  if (!value.startsWith('@')) return value;
  const path = resolve(cwd, value.slice(1));
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--system: cannot read ${path}: ${(error as { code?: string }).code ?? String(error)}`, {
      cause: error,
    });
  }
  if (text.trim() === '') throw new UsageError(`--system: ${path} is empty`);
  return text;
}

/**
 * Seeds a fresh session's system prompt, or reconciles a resumed one: a `replace` system
 * message is added only when the prompt in force differs from `prompt`.
 * Returns whether a message was added.
 */
export async function applySystemPrompt(agent: Agent, prompt: string, resumed: boolean): Promise<boolean> {
  if (resumed && agent.conversation.systemPrompt() === prompt) return false;
  await agent.addSystemMessage(prompt, 'replace');
  return true;
}
