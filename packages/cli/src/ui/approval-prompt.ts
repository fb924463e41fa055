import { createInterface } from 'node:readline';
import type { ToolCallBlock } from '@panto/core';
import type { ApprovalAnswer, AskApproval } from '../agent/approvals.js';
import { readKeys } from './keys.js';
import { describeToolCall } from './render-turn.js';
import { visible } from '../visible.js';
import type { InputStream, Terminal } from './terminal.js';

/**
 * Asks on the terminal before a tool call runs, naming what it needs beyond the sandbox: `y`
 * allow once, `a` allow calls like it for the session, `n` deny — then a reason for the model (Enter for none). Ctrl-C denies and calls
 * `onInterrupt` (which aborts the turn); so does an abort of the step.
 */
export function terminalApproval(input: InputStream, terminal: Terminal, onInterrupt: () => void): AskApproval {
  return async (call, signal, request) => {
    terminal.stopSpinner();
    terminal.endLine();
    for (const line of describeForApproval(call)) terminal.warn(line);
    if (request.needs.length > 0) terminal.warn(`  it needs ${request.needs.join(' and ')}, beyond the sandbox`);
    terminal.stderr.write(`  [y] allow once  [a] allow ${request.kind} for this session  [n] deny › `);
    const key = await new Promise<'y' | 'a' | 'n' | 'interrupt'>((resolve) => {
      const stop = readKeys(input, (text, key) => {
        const choice = key.ctrl && key.name === 'c' ? 'interrupt' : key.name === 'escape' ? 'n' : text?.toLowerCase();
        if (choice === 'y' || choice === 'a' || choice === 'n' || choice === 'interrupt') done(choice);
      });
      const onAbort = () => done('interrupt');
      signal.addEventListener('abort', onAbort, { once: true });
      function done(choice: 'y' | 'a' | 'n' | 'interrupt') {
        stop();
        signal.removeEventListener('abort', onAbort);
        resolve(choice);
      }
      if (signal.aborted) done('interrupt');
    });
    const answers: Record<typeof key, string> = {
      y: 'allowed once',
      a: `${request.kind} allowed for this session`,
      n: 'denied',
      interrupt: 'interrupted',
    };
    terminal.stderr.write(`${answers[key]}\n`);
    if (key === 'interrupt') {
      if (!signal.aborted) onInterrupt();
      return { type: 'deny', reason: 'the user interrupted the turn' };
    }
    if (key === 'y') return { type: 'once' };
    if (key === 'a') return { type: 'session' };
    const reason = await askLine(input, terminal.stderr as NodeJS.WritableStream, '  why? (the model sees it; Enter for none) › ');
    return reason === '' ? { type: 'deny' } : ({ type: 'deny', reason } satisfies ApprovalAnswer);
  };
}

/**
 * What is about to happen, in a few lines: the whole command for bash, the file for write and
 * edit. Control characters are shown as escapes (`\r`, `\e`, `\u{202e}`): written as they are,
 * a carriage return or an escape sequence in a command would hide what runs behind what is shown.
 */
export function describeForApproval(call: ToolCallBlock): string[] {
  return approvalLines(call).map(visible);
}

function approvalLines(call: ToolCallBlock): string[] {
  const input = call.input;
  if (call.name === 'bash' && typeof input.command === 'string') {
    // Every line: what is approved is what runs (a cut-off tail could hide anything).
    const shown = input.command.split('\n').map((line, i) => `${i === 0 ? '  $ ' : '    '}${line}`);
    return [`panto wants to run bash:`, ...shown];
  }
  if (call.name === 'write' && typeof input.content === 'string') {
    // A final line break ends the last line; it does not start another.
    const lines = input.content === '' ? [] : input.content.replace(/\r?\n$/, '').split('\n');
    const size = lines.length === 0 ? 'empty' : `${lines.length} line${lines.length === 1 ? '' : 's'}`;
    return [`panto wants to ${describeToolCall(call)} (${size}):`, ...excerpt(lines, '    ')];
  }
  if (call.name === 'edit' && typeof input.old_text === 'string' && typeof input.new_text === 'string') {
    return [`panto wants to ${describeToolCall(call)}:`, ...excerpt(input.old_text.split('\n'), '  - '), ...excerpt(input.new_text.split('\n'), '  + ')];
  }
  return [`panto wants to ${describeToolCall(call)}`];
}

/** The first lines of a text, each cut, and how many more there are. */
function excerpt(lines: readonly string[], prefix: string, max = 6): string[] {
  const shown = lines.slice(0, max).map((line) => `${prefix}${line.length > 150 ? `${line.slice(0, 149)}…` : line}`);
  if (lines.length > max) shown.push(`${' '.repeat(prefix.length)}… ${lines.length - max} more lines`);
  return shown;
}

function askLine(input: InputStream, output: NodeJS.WritableStream, question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input, output, terminal: true });
    let answered = false;
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      resolve(answer.trim());
    });
    rl.on('SIGINT', () => rl.close());
    rl.on('close', () => {
      if (!answered) resolve('');
    });
  });
}
