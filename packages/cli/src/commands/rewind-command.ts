/**
 * `/rewind` and `panto -r <session> --rewind <prompt id>`: back to before a prompt — the
 * files (from the checkpoint taken before it ran), the conversation (the session continues
 * from before it), or both.
 */
import { errorMessage, type Agent } from '@panto/core';
import { CliError } from '../errors.js';
import { describeRewound, filesDifferFrom, rewindFiles, RewindError, type RewindTarget } from '../checkpoints/rewind.js';
import { findPrompt, promptPreview, sessionPrompts, type PromptEntry, type SessionPrompts } from '../session/prompt-ids.js';
import { readKeys } from '../ui/keys.js';
import { selectFromList } from '../ui/select-list.js';
import type { CommandContext, TreeOutcome, TreeTerminal } from './command-context.js';

export const REWIND_COMMAND = {
  synopsis: '/rewind [prompt id] [both|files|conversation]',
  summary: 'go back to before a prompt: the files as they were then (bash changes too) and/or the conversation',
} as const;

export type RewindChoice = 'both' | 'files' | 'conversation';
const CHOICES: readonly RewindChoice[] = ['both', 'files', 'conversation'];
const CHOICE_LABELS: Record<RewindChoice, string> = {
  both: 'restore the files and the conversation',
  files: 'restore the files only',
  conversation: 'restore the conversation only',
};

/** The session's prompt that `id` names (see `findPrompt`), with the session's short prompt ids; `listing` says where they are listed. */
async function promptOf(agent: Agent, id: string, listing: string): Promise<{ prompt: PromptEntry; prompts: SessionPrompts }> {
  const prompts = sessionPrompts(await agent.sessionStore.loadTree());
  return { prompt: findPrompt(prompts, id, { session: agent.sessionStore.sessionId(), listing }), prompts };
}

/** The conversation goes back to before `prompt`; recorded in the session, so a later resume is there too. */
async function conversationBefore(agent: Agent, prompt: PromptEntry): Promise<void> {
  if (prompt.parent_id === null) await agent.continueFrom(null);
  else await agent.switchLeaf(prompt.parent_id);
}

/** `--rewind <prompt id>` at start: files first (nothing changes when there is no checkpoint), then the conversation. */
export async function rewindAtStart(context: CommandContext, id: string): Promise<void> {
  const { agent, terminal } = context;
  const { prompt, prompts } = await promptOf(agent, id, `panto -r ${agent.sessionStore.sessionId()} --list lists its prompts`);
  if (context.checkpoints === undefined) throw new CliError('--rewind: this run keeps no checkpoints of the files');
  try {
    const report = await rewindFiles(context.checkpoints, { promptId: prompt.id, point: 'before' });
    for (const line of describeRewound(report)) terminal.note(line);
  } catch (error) {
    if (error instanceof RewindError) throw new CliError(`--rewind: ${error.message}`);
    throw error;
  }
  await conversationBefore(agent, prompt);
  terminal.note(`rewound to before prompt ${prompts.short.get(prompt.id) ?? prompt.id}: ${promptPreview(prompt)}`);
}

/** `/rewind [prompt id] [both|files|conversation]`; problems are reported, never thrown (except store failures). */
export async function runRewindCommand(args: string, context: CommandContext, terminal: TreeTerminal | undefined): Promise<TreeOutcome> {
  const { agent } = context;
  try {
    const [id, given, extra] = args.split(/\s+/).filter((word) => word !== '');
    if (extra !== undefined || (given !== undefined && !CHOICES.includes(given as RewindChoice))) {
      context.terminal.error(`usage: ${REWIND_COMMAND.synopsis}`);
      return {};
    }
    const prompt = id !== undefined ? (await promptOf(agent, id, '/rewind lists them')).prompt : await pickPrompt(context, terminal);
    if (prompt === undefined) return {};
    const target: RewindTarget = { promptId: prompt.id, point: 'before' };
    const choice = (given as RewindChoice | undefined) ?? (await chooseRewind(context, terminal, target));
    if (choice === undefined) return {};
    if (choice !== 'conversation' && !(await restoreFiles(context, terminal, target))) return {};
    if (choice === 'files') return {};
    await conversationBefore(agent, prompt);
    context.terminal.note(`the conversation is back to before that prompt (${agent.conversation.length} messages): send it again, or another`);
    return terminal === undefined ? {} : { prefill: prompt.message.content };
  } catch (error) {
    context.terminal.error(`/rewind failed: ${errorMessage(error)}`);
    return {};
  }
}

/**
 * Offers the three ways to go back to `target` when its files have a checkpoint (on a
 * terminal: a list; piped: both); `conversation` when they have none; undefined: cancelled.
 */
export async function chooseRewind(
  context: CommandContext,
  terminal: TreeTerminal | undefined,
  target: RewindTarget,
  quiet = false,
): Promise<RewindChoice | undefined> {
  const { checkpoints } = context;
  // Not knowing whether the files differ (no checkpoint, or it cannot be read) is the same as not differing: only the conversation is offered.
  const differ = checkpoints === undefined ? undefined : await filesDifferFrom(checkpoints, target).catch(() => undefined);
  if (differ !== true) {
    const why = differ === undefined ? `no checkpoint of the files ${target.point} that prompt` : 'the files are as they were then';
    if (!quiet) context.terminal.note(`(${why}: only the conversation goes back)`);
    return 'conversation';
  }
  if (terminal === undefined) return 'both';
  context.terminal.endLine();
  const chosen = await selectFromList<RewindChoice>(terminal.input, terminal.output, {
    title: `go back to ${target.point} that prompt`,
    help: '↑↓ move · Enter: choose · Esc: cancel',
    items: CHOICES.map((choice) => ({ value: choice, label: CHOICE_LABELS[choice] })),
    filter: false,
  });
  return chosen?.value;
}

/** Restores the files of `target`, asking about files changed outside panto on a terminal; false when it could not. */
export async function restoreFiles(context: CommandContext, terminal: TreeTerminal | undefined, target: RewindTarget): Promise<boolean> {
  const { checkpoints } = context;
  if (checkpoints === undefined) return false;
  const confirm =
    terminal === undefined
      ? undefined
      : async (paths: readonly string[]) => {
          context.terminal.warn(`changed outside panto since then: ${paths.join(', ')}`);
          return await askYesNo(terminal, '  overwrite them too? [y/N] ');
        };
  try {
    const report = await rewindFiles(checkpoints, target, confirm);
    for (const line of describeRewound(report)) context.terminal.result(line);
    return true;
  } catch (error) {
    context.terminal.error(`/rewind: ${errorMessage(error)}; nothing was changed`);
    return false;
  }
}

/** The prompts of the current conversation, newest first, picked on a terminal (piped: listed). */
async function pickPrompt(context: CommandContext, terminal: TreeTerminal | undefined): Promise<PromptEntry | undefined> {
  const { onPath: prompts, short } = sessionPrompts(await context.agent.sessionStore.loadTree());
  const known = new Set((await context.checkpoints?.prompts())?.map((record) => record.prompt_id) ?? []);
  if (prompts.length === 0) {
    context.terminal.result('no prompts yet to go back to');
    return undefined;
  }
  const label = (entry: PromptEntry) => `${known.has(entry.id) ? '◆' : '◇'} ${short.get(entry.id) ?? entry.id}  ${promptPreview(entry)}`;
  if (terminal === undefined) {
    for (const entry of prompts) context.terminal.result(label(entry));
    context.terminal.note('(◆: the files have a checkpoint) /rewind <prompt id> [both|files|conversation]');
    return undefined;
  }
  context.terminal.endLine();
  const chosen = await selectFromList<PromptEntry>(terminal.input, terminal.output, {
    title: 'rewind to before which prompt? (◆: its files have a checkpoint)',
    help: '↑↓ move · Enter: choose · Esc: cancel',
    items: prompts.map((entry) => ({ value: entry, label: label(entry) })),
    filter: false,
    rows: 15,
  });
  return chosen?.value;
}

/** A y/N question on the terminal: true for y. */
function askYesNo(terminal: TreeTerminal, question: string): Promise<boolean> {
  terminal.output.write(question);
  return new Promise((resolve) => {
    const stop = readKeys(terminal.input, (text, key) => {
      const yes = text?.toLowerCase() === 'y';
      if (!yes && text?.toLowerCase() !== 'n' && key.name !== 'return' && key.name !== 'escape' && !(key.ctrl && key.name === 'c')) return;
      stop();
      terminal.output.write(yes ? 'yes\n' : 'no\n');
      resolve(yes);
    });
  });
}
