/**
 * What a resumed session shows first: its last turns, compactly — each prompt, the tools
 * its answer called (one line each), and the start of the final answer — so the user sees
 * where they are.
 */
import { assistantText, type Message } from '@panto/core';
import { describeToolCall } from '../ui/render-turn.js';
import { ellipsize } from '../ui/terminal.js';

export const REPLAY_TURNS = 3;
const ANSWER_LINES = 4;
const LINE_LENGTH = 160;

/**
 * The lines that replay the last `turns` turns of `messages` (a conversation); [] when it
 * holds no prompt.
 *
 * @example
 * for (const line of replayLines(agent.conversation.messages)) terminal.note(line);
 */
export function replayLines(messages: readonly Message[], turns = REPLAY_TURNS): string[] {
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'user') starts.push(index);
  });
  if (starts.length === 0) return [];
  const shown = starts.slice(-turns);
  const earlier = starts.length - shown.length;
  const lines: string[] = [earlier > 0 ? `── the last ${shown.length} of ${starts.length} turns ──` : '── the conversation so far ──'];
  if (messages.some((message) => message.role === 'compaction')) lines.push('  (earlier turns were compacted into a summary)');
  shown.forEach((start, i) => {
    const end = shown[i + 1] ?? messages.length;
    lines.push(...turnLines(messages.slice(start, end)));
  });
  lines.push('──');
  return lines;
}

function turnLines(turn: readonly Message[]): string[] {
  const lines: string[] = [];
  let answer = '';
  for (const message of turn) {
    switch (message.role) {
      case 'user': {
        const [first = '', ...rest] = message.content.split('\n');
        lines.push(`› ${ellipsize(first, LINE_LENGTH)}${rest.length > 0 ? ` (+${rest.length} line${rest.length === 1 ? '' : 's'})` : ''}`);
        break;
      }
      case 'assistant': {
        for (const block of message.content) if (block.type === 'tool_call') lines.push(`  · ${describeToolCall(block)}`);
        const text = assistantText(message).trim();
        if (text !== '') answer = text;
        if (message.stop_reason === 'aborted') answer = `${answer}${answer === '' ? '' : ' '}(aborted)`;
        break;
      }
      case 'system':
      case 'tool_result':
      case 'compaction':
        break;
      default: {
        const unexpected: never = message;
        return unexpected;
      }
    }
  }
  if (answer === '') {
    lines.push('  (no answer)');
    return lines;
  }
  const answerLines = answer.split('\n').filter((line) => line.trim() !== '');
  for (const line of answerLines.slice(0, ANSWER_LINES)) lines.push(`  ${ellipsize(line, LINE_LENGTH)}`);
  if (answerLines.length > ANSWER_LINES) lines.push(`  … (${answerLines.length - ANSWER_LINES} more lines)`);
  return lines;
}
