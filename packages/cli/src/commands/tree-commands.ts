/**
 * `/tree` and `/fork`: moving about the session's tree of entries (see @panto/core's
 * `SessionTree`) and copying the current path into a new session.
 */
import { errorMessage } from '@panto/core';
import type { CommandContext, SlashCommand, TreeOutcome, TreeTerminal } from './command-context.js';
import { replayLines } from '../session/replay.js';
import { selectFromList } from '../ui/select-list.js';
import { SwitchableStore } from '../session/switchable-store.js';
import { treeTurns, turnLabel, type TreeTurn } from './tree-view.js';
import { chooseRewind, restoreFiles } from './rewind-command.js';

export const TREE_COMMANDS = [
  {
    synopsis: '/tree',
    summary: 'the session as a tree of prompts: go back to any answer, or edit an earlier prompt and resend it (a new branch)',
  },
  {
    synopsis: '/fork',
    summary: 'copy the conversation so far into a new session and continue there (this one stays as it is)',
  },
] as const;

export function isTreeCommand(command: SlashCommand): boolean {
  return command.name === 'tree' || command.name === 'fork';
}

/** Runs `/tree` or `/fork`; problems are reported, never thrown (except store failures). */
export async function runTreeCommand(command: SlashCommand, context: CommandContext, terminal: TreeTerminal | undefined): Promise<TreeOutcome> {
  try {
    return command.name === 'fork' ? await fork(context) : await tree(context, terminal);
  } catch (error) {
    context.terminal.error(`/${command.name} failed: ${errorMessage(error)}`);
    return {};
  }
}

/** Where the conversation now ends: what this run last wrote, loaded or switched to, else the session's active leaf. */
async function position(context: CommandContext): Promise<string | null> {
  const store = context.agent.sessionStore;
  const known = store instanceof SwitchableStore ? store.position : undefined;
  return known !== undefined ? known : (await store.loadTree()).activeLeaf;
}

async function tree(context: CommandContext, terminal: TreeTerminal | undefined): Promise<TreeOutcome> {
  const { agent } = context;
  const sessionTree = await agent.sessionStore.loadTree();
  const at = await position(context);
  const turns = treeTurns(sessionTree, at);
  if (turns.length === 0) {
    context.terminal.result('no prompts yet: the tree starts with the first one');
    return {};
  }
  if (terminal === undefined) {
    for (const turn of turns) context.terminal.result(turnLabel(turn));
    context.terminal.note('(moving about the tree needs a terminal)');
    return {};
  }
  context.terminal.endLine();
  const chosen = await selectFromList<TreeTurn>(terminal.input, terminal.output, {
    title: `session tree (${plural(sessionTree.leaves.length, 'leaf', 'leaves')}, ${plural(sessionTree.branchPoints.length, 'branch point', 'branch points')})`,
    help: '↑↓ move · Enter: continue after this answer · e: edit this prompt and resend it (a new branch) · Esc: back',
    items: turns.map((turn) => ({ value: turn, label: turnLabel(turn) })),
    initial: Math.max(
      0,
      turns.findIndex((turn) => turn.current),
    ),
    filter: false,
    actions: ['e'],
    rows: 15,
  });
  if (chosen === undefined) return {};
  const turn = chosen.value;
  const back = chosen.action === 'e' || turn.end === undefined;
  // Moving to an earlier point offers to take the files there too (when they have a checkpoint).
  const target = { promptId: turn.prompt.id, point: back ? 'before' : 'after' } as const;
  const choice = turn.current && !back ? 'conversation' : await chooseRewind(context, terminal, target, true);
  if (choice === undefined) return {};
  if (choice !== 'conversation' && !(await restoreFiles(context, terminal, target))) return {};
  if (choice === 'files') return {};
  const end = turn.end;
  if (back || end === undefined) {
    // Back to before the prompt: nothing is written until the edited prompt is sent, which
    // then starts a branch beside the original.
    const point = await agent.continueFrom(turn.end === undefined && chosen.action !== 'e' ? turn.prompt.id : turn.prompt.parent_id);
    context.terminal.note(`editing an earlier prompt: send it to start a new branch (${plural(agent.conversation.length, 'message', 'messages')} before it)`);
    return { prefill: point.danglingUser ?? turn.prompt.message.content };
  }
  await agent.switchLeaf(end.id);
  context.terminal.note(`continuing after this answer (${plural(agent.conversation.length, 'message', 'messages')})`);
  for (const line of replayLines(agent.conversation.messages, 1)) context.terminal.note(line);
  return {};
}

async function fork(context: CommandContext): Promise<TreeOutcome> {
  const { agent } = context;
  const store = agent.sessionStore;
  if (!(store instanceof SwitchableStore)) {
    context.terminal.error('/fork: this session cannot be forked');
    return {};
  }
  const at = await position(context);
  if (at === null) {
    context.terminal.error('/fork: nothing to fork yet — send a prompt first');
    return {};
  }
  const original = store.sessionId();
  store.switchTo(await store.fork(at));
  const point = await agent.continueFrom(at);
  const file = context.sessionFile();
  context.terminal.result(`forked ${original} into a new session ${store.sessionId()}${file === undefined ? '' : ` (${file})`}; the original is unchanged`);
  return point.danglingUser === null ? {} : { prefill: point.danglingUser };
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
