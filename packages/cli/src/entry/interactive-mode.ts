/**
 * Interactive panto: the input (the terminal, with this folder's history, or piped lines),
 * the banner and the replay of a resumed session, then the REPL until the user leaves.
 */
import { parseSlashCommand, runSlashCommand } from '../commands/slash-commands.js';
import { isTreeCommand, runTreeCommand } from '../commands/tree-commands.js';
import { runRewindCommand } from '../commands/rewind-command.js';
import { describeProviderChoice } from '../agent/provider-choice.js';
import { EXIT_FAILURE, EXIT_OK } from '../errors.js';
import { replayLines } from '../session/replay.js';
import { historyFileFor } from '../session/session-dir.js';
import type { SwitchableSession } from '../session/switchable-store.js';
import { InputHistory } from '../ui/input-history.js';
import { PipedLineInput, TerminalLineInput, type LineInput } from '../ui/line-input.js';
import { reportTurn } from '../ui/render-turn.js';
import type { Terminal } from '../ui/terminal.js';
import type { CliOptions } from './args.js';
import type { CliEnvironment, RunPlaces } from './cli-environment.js';
import type { RunningAgent } from './running-agent.js';
import type { StartedAgent } from './start-agent.js';
import { CLI_VERSION } from '../version.js';

/** Starts interactive mode and resolves to its exit code (see {@link runRepl}). */
export async function runInteractiveMode(
  started: StartedAgent,
  run: { session: SwitchableSession; options: CliOptions; environment: CliEnvironment; places: RunPlaces },
): Promise<number> {
  const { running, ui } = started;
  const { terminal, agent } = running;
  const input = run.environment.lineInput ?? (await defaultLineInput(run.environment, run.places, terminal));
  ui.useInput(input);
  running.checkpoints?.warmUp();
  terminal.note(banner(running, run.session, run.options));
  if (run.session.resumed) for (const line of replayLines(agent.conversation.messages)) terminal.note(line);
  try {
    return await runRepl(running, input, started.danglingUser);
  } finally {
    // A session quit right away leaves no git process writing into $PANTO_HOME behind it.
    await running.checkpoints?.settle();
  }
}

/** The terminal (with this folder's input history) when stdin is one, else the lines piped in. */
async function defaultLineInput(environment: CliEnvironment, places: RunPlaces, terminal: Terminal): Promise<LineInput> {
  const { stdin, stdout, stderr } = environment;
  if (!stdin.isTTY) return new PipedLineInput(stdin);
  const history = await InputHistory.load(historyFileFor(places.dataDir, places.cwd), (error) => terminal.warn(`panto: input history: ${error.message}`));
  // With stdout redirected to a file, the prompt and the echo belong on the terminal.
  return new TerminalLineInput(stdin, stdout.isTTY ? stdout : stderr, history);
}

function banner(running: RunningAgent, session: SwitchableSession, options: CliOptions): string {
  const id = running.agent.sessionStore.sessionId();
  const where = session.resumed
    ? `resumed ${id} (${running.agent.conversation.length} messages)`
    : `new session ${id}${options.noSession ? ' (not saved)' : ''}`;
  return `panto ${CLI_VERSION} · ${describeProviderChoice(running.providerChoice())} · ${where} · /help for commands`;
}

export const PROMPT = '> ';

/**
 * The interactive loop: reads prompts and commands until `/quit`, Ctrl-D, Ctrl-C at an
 * empty prompt, or the end of piped input. A dangling prompt from the resumed session is
 * offered back in the input line (on a terminal); sending it is an ordinary new prompt.
 *
 * Returns the exit code: 0, or 1 when the input was piped and a turn failed (so scripts
 * notice).
 */
export async function runRepl(running: RunningAgent, input: LineInput, danglingUser: string | null): Promise<number> {
  const { terminal } = running;
  let prefill: string | undefined;
  if (danglingUser !== null) {
    if (input.interactive) {
      terminal.warn('The last prompt of this session was never answered. It is in the input line: press Enter to send it, edit it, or clear it.');
      prefill = danglingUser;
    } else {
      terminal.warn(`The last prompt of this session was never answered (it is not resent): ${promptPreview(danglingUser)}`);
    }
  }
  running.onIdleInterrupt = () => input.close();
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
        ({ prefill } = await runTreeCommand(command, running, input.terminal));
        continue;
      }
      if (command?.name === 'rewind') {
        ({ prefill } = await runRewindCommand(command.args, running, input.terminal));
        continue;
      }
      if (command) {
        if ((await runSlashCommand(command, running)) === 'quit') break;
        continue;
      }
      const prompt = line.startsWith('//') ? line.slice(1) : line;
      const result = await running.turn(prompt, 'stream');
      if (!reportTurn(terminal, result)) failed = true;
    }
  } finally {
    running.onIdleInterrupt = undefined;
  }
  return failed && !input.interactive ? EXIT_FAILURE : EXIT_OK;
}

/** A prompt on one line, cut at 200 characters. */
function promptPreview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
