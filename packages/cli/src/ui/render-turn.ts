import type { AgentEvent, JsonValue, Receiver, StepResult, ToolCallBlock, ToolResultMessage, Usage } from '@panto/core';
import { MarkdownStream, type MarkdownOutput } from './markdown.js';
import { costSuffix, messagesCost } from '../agent/model-catalog.js';
import type { Terminal } from './terminal.js';
import { formatSize } from '../tools/truncate.js';
import { visible } from '../visible.js';

/** How a turn's answer is shown: streamed to stdout (interactive) or printed once at the end (`-p`). */
export type RenderMode = 'stream' | 'print';

/**
 * Shows a step as it runs: the spinner while waiting for the first token and while tools
 * run, streamed text (in `stream` mode), one line per tool call with its result size.
 * The receiver follows the core contract: it never throws.
 */
export function createTurnReceiver(terminal: Terminal, mode: RenderMode): Receiver {
  // Per message: rendered when the renderer has loaded by the message's start (see cli.ts).
  let markdown: MarkdownStream | undefined;
  return (event: AgentEvent) => {
    switch (event.type) {
      case 'message-start':
        markdown =
          mode === 'stream' && terminal.renderMarkdown !== undefined ? new MarkdownStream(terminal.renderMarkdown, markdownOutput(terminal)) : undefined;
        terminal.spin('waiting for the model…');
        return;
      case 'thinking-start':
      case 'thinking-delta':
        terminal.spin('thinking…');
        return;
      case 'text-delta':
        if (markdown !== undefined) {
          // Rendered a block at a time, the open block shown raw on a terminal (elsewhere
          // the spinner shows until a block is complete).
          terminal.stopSpinner();
          if (!markdown.push(event.delta)) terminal.spin('writing…');
        } else if (mode === 'stream') {
          terminal.stopSpinner();
          terminal.text(event.delta);
        } else {
          terminal.spin('writing…');
        }
        return;
      case 'tool-call-start':
        // The text before a tool call is complete: rendered before the spinner takes the line.
        markdown?.flush();
        terminal.spin(`preparing ${event.name}…`);
        return;
      case 'tool-execution-start':
        terminal.spin(describeToolCall(event.toolCall));
        return;
      case 'tool-execution-end':
        terminal.stopSpinner();
        terminal.note(toolLine(event.toolCall, event.result));
        return;
      case 'message-end':
      case 'step-end':
        terminal.stopSpinner();
        markdown?.flush();
        if (mode === 'stream') terminal.endLine();
        return;
      case 'text-start':
      case 'text-end':
      case 'thinking-end':
      case 'tool-call-delta':
      case 'tool-call-end':
      case 'entries-persisted':
      case 'step-start':
      case 'compaction-start':
      case 'compaction-end':
      case 'error':
        return;
      default: {
        const unexpected: never = event;
        return unexpected;
      }
    }
  };
}

/** Where a streamed answer's markdown goes: stdout, whose size tells what the raw text of an open block took. */
function markdownOutput(terminal: Terminal): MarkdownOutput {
  const { stdout } = terminal;
  return {
    write: (text) => terminal.text(text),
    columns: () => (stdout.isTTY === true ? (stdout.columns ?? 80) : undefined),
    rows: () => stdout.rows,
  };
}

/** One line for a finished tool call: what it was, and how big its result is. */
export function toolLine(call: ToolCallBlock, result: ToolResultMessage): string {
  const images = result.images?.length ?? 0;
  const size = `${formatSize(Buffer.byteLength(result.content))}${images > 0 ? ` + ${images} image${images === 1 ? '' : 's'}` : ''}`;
  if (!result.is_error) return `  ✓ ${describeToolCall(call)} · ${size}`;
  const firstLine = result.content.split('\n').find((line) => line.trim() !== '') ?? '';
  return `  ✗ ${describeToolCall(call)} · ${size} · ${cut(visible(firstLine), 100)}`;
}

/** A tool call in a few words: `read src/a.ts:10+20`, `bash $ npm test`. */
export function describeToolCall(call: ToolCallBlock): string {
  return visible(describeCall(call));
}

function describeCall(call: ToolCallBlock): string {
  const input = call.input;
  const text = (name: string): string | undefined => (typeof input[name] === 'string' ? (input[name] as string) : undefined);
  switch (call.name) {
    case 'read': {
      const path = text('path') ?? '?';
      const offset = input.offset;
      const limit = input.limit;
      const range =
        typeof offset === 'number' || typeof limit === 'number'
          ? `:${typeof offset === 'number' ? offset : 1}${typeof limit === 'number' ? `+${limit}` : ''}`
          : '';
      return `read ${path}${range}`;
    }
    case 'write':
    case 'edit':
      return `${call.name} ${text('path') ?? '?'}`;
    case 'bash': {
      const command = (text('command') ?? '').split('\n')[0] ?? '';
      return `bash $ ${cut(command, 80)}${(text('command') ?? '').includes('\n') ? ' …' : ''}`;
    }
    default:
      return `${call.name} ${cut(compactJson(input), 80)}`;
  }
}

/** `tokens: 1,234 in · 56 out · 1,000 cache read` — cache figures only when there are any. */
export function formatUsage(usage: Usage): string {
  const parts = [`${groupDigits(usage.input_tokens)} in`, `${groupDigits(usage.output_tokens)} out`];
  if (usage.cache_read_tokens > 0) parts.push(`${groupDigits(usage.cache_read_tokens)} cache read`);
  if (usage.cache_write_tokens > 0) parts.push(`${groupDigits(usage.cache_write_tokens)} cache write`);
  return `tokens: ${parts.join(' · ')}`;
}

/** The line shown after a turn: usage, and how it ended when it did not end normally. */
export function turnSummary(result: StepResult): string {
  const calls = result.providerCalls === 1 ? '1 call' : `${result.providerCalls} calls`;
  return `  ${formatUsage(result.usage)}${costSuffix(messagesCost(result.messages))} (${calls})`;
}

/** Tells how a turn ended and what it cost; false when it failed. */
export function reportTurn(terminal: Terminal, result: StepResult): boolean {
  switch (result.stopReason) {
    case 'aborted':
      terminal.warn('⏹ aborted — what was already said is kept');
      break;
    case 'error':
      terminal.error(`error: ${result.error?.message ?? 'the provider failed'}`);
      break;
    case 'max_tokens':
      terminal.warn('the answer was cut off: the model reached its output token limit');
      break;
    case 'refusal':
      terminal.warn('the model refused to answer');
      break;
    case 'awaiting_approval':
      terminal.warn(`waiting for approval of ${(result.pendingApprovals ?? []).map((approval) => approval.toolCall.name).join(', ')}`);
      break;
    case 'end_turn':
    case 'tool_use':
    case 'stop_sequence':
      if (result.incomplete) terminal.warn(`stopped after ${result.providerCalls} model calls in one turn; send a prompt to go on`);
      break;
    default: {
      const unexpected: never = result.stopReason;
      return unexpected;
    }
  }
  terminal.note(turnSummary(result));
  return result.stopReason !== 'error';
}

function groupDigits(value: number): string {
  return value.toLocaleString('en-US');
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function compactJson(value: { [key: string]: JsonValue }): string {
  return JSON.stringify(value);
}
