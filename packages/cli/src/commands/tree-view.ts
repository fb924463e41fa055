/**
 * `/tree` as lines: one per user prompt, with the first words of its answer, indented
 * where the conversation branches, the current path marked. A branch point is a turn
 * that more than one prompt follows (an edited and resent prompt, a dangling prompt and
 * its resend, a `/tree` jump that went on elsewhere).
 */
import { entryPreview, type RecordEntry, type SessionTree } from '@panto/core';

export interface TreeTurn {
  /** The user prompt that starts the turn. */
  prompt: RecordEntry & { type: 'message'; message: { role: 'user'; content: string } };
  /** The entry its answer ends at (continue from here); undefined when it was never answered. */
  end: RecordEntry | undefined;
  /** The last assistant message of the turn (what the line shows of the answer), if any. */
  answer: RecordEntry | undefined;
  /** Levels of indentation: one more under each branch point. */
  depth: number;
  /** Whether this row starts a branch (drawn `├─`). */
  branchStart: boolean;
  /** Whether it is on the current path. */
  onPath: boolean;
  /** Whether the current path ends in this turn. */
  current: boolean;
  /** Prompts that follow this turn. */
  branches: number;
}

const WORDS = 48;

/** The turns of `tree` in display order (depth first, log order); `at` is where the conversation now ends. */
export function treeTurns(tree: SessionTree, at: string | null): TreeTurn[] {
  const path = new Set(at === null ? [] : tree.pathTo(at).map((entry) => entry.id));
  const isPrompt = (entry: RecordEntry): entry is TreeTurn['prompt'] => entry.type === 'message' && entry.message.role === 'user';
  /** The prompts that follow an entry's turn: found below it, through entries that are not prompts. */
  const followers = (id: string | null): TreeTurn['prompt'][] => {
    const found: TreeTurn['prompt'][] = [];
    const stack = [...tree.children(id)].reverse();
    while (stack.length > 0) {
      const entry = stack.pop()!;
      if (isPrompt(entry)) found.push(entry);
      else stack.push(...[...tree.children(entry.id)].reverse());
    }
    return found;
  };
  const turnEnd = (prompt: RecordEntry): { end: RecordEntry | undefined; answer: RecordEntry | undefined } => {
    let end: RecordEntry = prompt;
    let answer: RecordEntry | undefined;
    for (;;) {
      const next = tree.children(end.id).filter((entry) => !isPrompt(entry));
      if (next.length === 0) break;
      end = next.find((entry) => path.has(entry.id)) ?? next[next.length - 1]!;
      if (end.type === 'message' && end.message.role === 'assistant') answer = end;
    }
    return { end: end === prompt ? undefined : end, answer };
  };
  const turns: TreeTurn[] = [];
  const walk = (prompts: readonly TreeTurn['prompt'][], depth: number, branching: boolean) => {
    for (const prompt of prompts) {
      const { end, answer } = turnEnd(prompt);
      const next = followers(end?.id ?? prompt.id);
      const onPath = path.has(prompt.id);
      const current = at !== null && (at === prompt.id || (end !== undefined && path.has(end.id) && !next.some((entry) => path.has(entry.id))));
      turns.push({
        prompt,
        end,
        answer,
        depth,
        branchStart: branching,
        onPath,
        current: onPath && current,
        branches: next.length,
      });
      if (next.length === 1) walk(next, depth, false);
      else if (next.length > 1) walk(next, depth + 1, true);
    }
  };
  const roots = followers(null);
  walk(roots, roots.length > 1 ? 1 : 0, roots.length > 1);
  return turns;
}

/** One line for a turn: `● ├─ › fix the test → Looking into it… (2 branches)`. */
export function turnLabel(turn: TreeTurn): string {
  const indent = turn.depth === 0 ? '' : `${'   '.repeat(turn.depth - 1)}${turn.branchStart ? '├─ ' : '   '}`;
  const shown = turn.answer ?? turn.end;
  const answer = shown === undefined ? '(no answer)' : entryPreview(shown, WORDS);
  const marks = [turn.branches > 1 ? `(${turn.branches} branches)` : '', turn.current ? '◀ here' : ''].filter((mark) => mark !== '');
  return `${turn.onPath ? '●' : '○'} ${indent}› ${entryPreview(turn.prompt, WORDS)} → ${answer}${marks.length > 0 ? `  ${marks.join(' ')}` : ''}`;
}
