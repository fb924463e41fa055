import type { StepResult } from '@panto/core';
import type { App } from './running-agent.js';
import { parseSlashCommand, runSlashCommand } from '../commands/slash-commands.js';
import { EXIT_FAILURE, EXIT_OK } from '../errors.js';
import type { LineInput } from '../ui/line-input.js';
import { turnSummary } from '../ui/render-turn.js';
import { isTreeCommand, runTreeCommand } from '../commands/tree-commands.js';

export const PROMPT = '> ';

/**
 * The interactive loop: reads prompts and commands until `/quit`, Ctrl-D, Ctrl-C at an
 * empty prompt, or the end of piped input. A dangling prompt from the resumed session is
 * offered back in the input line (on a terminal); sending it is an ordinary new prompt.
 *
 * Returns the exit code: 0, or 1 when the input was piped and a turn failed (so scripts
 * notice).
 */
export async function runRepl(app: App, input: LineInput, danglingUser: string | null): Promise<number> {
  const { terminal } = app;
  let prefill: string | undefined;
  if (danglingUser !== null) {
    if (input.interactive) {
      terminal.warn('The last prompt of this session was never answered. It is in the input line: press Enter to send it, edit it, or clear it.');
      prefill = danglingUser;
    } else {
      terminal.warn(`The last prompt of this session was never answered (it is not resent): ${oneLine(danglingUser)}`);
    }
  }
  app.onIdleInterrupt = () => input.close();
  let failed = false;
  try {
    for (;;) {
      const read = await input.read(PROMPT, prefill);
      prefill = undefined;
      if (read.type === 'end') break;
      if (read.type === 'cancel') continue;
      const line = read.text;
      if (line.trim() === '') continue;
      if (!input.interactive) terminal.note(`${PROMPT}${line}`);

      const command = parseSlashCommand(line);
      if (command && isTreeCommand(command)) {
        ({ prefill } = await runTreeCommand(command, app, input.terminal));
        continue;
      }
      if (command) {
        if ((await runSlashCommand(command, app)) === 'quit') break;
        continue;
      }
      const prompt = line.startsWith('//') ? line.slice(1) : line;
      const result = await app.turn(prompt, 'stream');
      if (!reportTurn(app, result)) failed = true;
    }
  } finally {
    app.onIdleInterrupt = undefined;
  }
  return failed && !input.interactive ? EXIT_FAILURE : EXIT_OK;
}

/** Tells how a turn ended and what it cost; false when it failed. */
export function reportTurn(app: App, result: StepResult): boolean {
  const { terminal } = app;
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

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
