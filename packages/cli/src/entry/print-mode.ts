/** `panto -p`: one turn, the answer printed to stdout once it is complete, then exit. */
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, UsageError } from '../errors.js';
import { reportTurn } from '../ui/render-turn.js';
import type { InputStream } from '../ui/terminal.js';
import type { OutputFormat } from './args.js';
import { finalAnswer, resultObject, streamJsonReceiver } from './output-format.js';
import type { RunningAgent, TurnResult } from './running-agent.js';

/** The prompt of `-p VALUE`: VALUE itself, or stdin read to its end when VALUE is `-`. */
export async function readPrintPrompt(value: string, stdin: InputStream): Promise<string> {
  if (value !== '-') return value;
  if (stdin.isTTY === true) throw new UsageError("--print needs a prompt: panto -p 'PROMPT', or pipe one in (git diff | panto -p)");
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const text = Buffer.concat(chunks).toString('utf8').trimEnd();
  if (text.trim() === '') throw new UsageError('--print -: the prompt read from stdin is empty');
  return text;
}

/**
 * Runs the one turn and prints its answer (rendered as markdown once `markdownReady` has
 * settled, when a renderer was loaded), or with `json` / `stream-json` the result object
 * (after the event lines). Resolves to the exit code: 130 when interrupted, 1 when the turn
 * failed or stopped before it was complete.
 */
export async function runPrintMode(
  running: RunningAgent,
  prompt: string,
  danglingUser: string | null,
  markdownReady: Promise<void>,
  format: OutputFormat = 'text',
): Promise<number> {
  const { terminal } = running;
  if (danglingUser !== null) {
    terminal.warn('note: the last prompt of this session was never answered; it is not resent');
  }
  const sessionId = () => running.agent.sessionStore.sessionId();
  const writeLine = (line: string) => terminal.text(`${line}\n`);
  const result = await running.turn(
    prompt,
    'print',
    format === 'stream-json' ? { observe: (promptId) => streamJsonReceiver(sessionId(), promptId, writeLine) } : {},
  );
  if (format === 'text') await printAnswer(running, result, markdownReady);
  else writeLine(JSON.stringify(resultObject(result, sessionId(), finalAnswer(result))));
  const ok = reportTurn(terminal, result);
  if (result.stopReason === 'aborted') return EXIT_INTERRUPTED;
  if (!ok) return EXIT_FAILURE;
  return result.incomplete ? EXIT_FAILURE : EXIT_OK;
}

/** The answer first, then the usage line (and any warning): on a terminal, where both show, it reads as an interactive turn does. */
async function printAnswer(running: RunningAgent, result: TurnResult, markdownReady: Promise<void>): Promise<void> {
  const { terminal } = running;
  if (result.stopReason === 'aborted' || result.stopReason === 'error') return;
  const answer = finalAnswer(result);
  await markdownReady;
  const shown = answer === '' || terminal.renderMarkdown === undefined ? answer : `${terminal.renderMarkdown(answer).trimEnd()}\n`;
  if (shown !== '') terminal.text(shown.endsWith('\n') ? shown : `${shown}\n`);
}
