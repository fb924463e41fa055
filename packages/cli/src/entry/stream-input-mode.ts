/**
 * `panto -p --input-format stream-json --output-format stream-json`: prompts on stdin, one
 * JSON object per line, answered one after another in one session, each answer the
 * `--output-format stream-json` lines of a `-p` turn (`start` … `result`). An interrupt
 * stops the turn running when it is read (what it committed stays; prompts read after it
 * still run); a line that is not a prompt or a control request gets an `error` line and
 * changes nothing. The run ends when stdin does, once the prompts read have been answered.
 */
import { EXIT_FAILURE, EXIT_OK } from '../errors.js';
import { reportTurn } from '../ui/render-turn.js';
import type { InputStream } from '../ui/terminal.js';
import { finalAnswer, resultObject, streamJsonReceiver, type StreamEvent } from './output-format.js';
import type { RunningAgent } from './running-agent.js';
import { parseInputLine, readLines, type ControlResponse, type InputLine, type ReadLine } from './stream-input.js';

/**
 * Reads stdin to its end, answering its prompts in order. Resolves to 1 when a turn failed
 * or stopped before it was complete (not by an interrupt), or a line was refused; else 0.
 */
export async function runStreamInputMode(running: RunningAgent, stdin: InputStream, danglingUser: string | null): Promise<number> {
  const { terminal } = running;
  if (danglingUser !== null) terminal.warn('note: the last prompt of this session was never answered; it is not resent');
  const writeText = (line: string) => terminal.text(`${line}\n`);
  const writeLine = (value: StreamEvent | ControlResponse) => writeText(JSON.stringify(value));
  const queue = new PromptQueue(running, writeText);
  let refused = false;
  let number = 0;
  for await (const read of readLines(stdin)) {
    number++;
    const line = lineOf(read);
    if (line === undefined) continue;
    switch (line.type) {
      case 'prompt':
        if (!queue.add(line.text)) writeLine({ type: 'error', message: `stdin line ${number}: not answered: the session can no longer be written` });
        break;
      case 'interrupt':
        queue.interrupt();
        writeLine({ type: 'control_response', response: { subtype: 'success', request_id: line.requestId } });
        break;
      case 'unsupported':
        refused = true;
        writeLine({
          type: 'control_response',
          response: {
            subtype: 'error',
            request_id: line.requestId,
            error: `panto does not handle control requests of subtype ${JSON.stringify(line.subtype)}`,
          },
        });
        break;
      case 'invalid':
        refused = true;
        writeLine({ type: 'error', message: `stdin line ${number}: ${line.reason}; it was ignored` });
        break;
      default: {
        const unexpected: never = line;
        return unexpected;
      }
    }
  }
  const failed = await queue.drained();
  return failed || refused ? EXIT_FAILURE : EXIT_OK;
}

/** The prompts read and not yet answered, answered one after another in the session. */
class PromptQueue {
  readonly #running: RunningAgent;
  readonly #writeText: (line: string) => void;
  readonly #prompts: string[] = [];
  #worker: Promise<void> | undefined;
  #turn: AbortController | undefined;
  #failed = false;
  /** A failure of the session's store: nothing more can be answered; thrown by {@link drained}. */
  #broken: { error: unknown } | undefined;

  constructor(running: RunningAgent, writeText: (line: string) => void) {
    this.#running = running;
    this.#writeText = writeText;
  }

  /** Queues a prompt (answered after those before it); false when the session can no longer be written. */
  add(text: string): boolean {
    if (this.#broken !== undefined) return false;
    this.#prompts.push(text);
    this.#worker ??= this.#answer()
      .catch((error: unknown) => {
        this.#broken = { error };
        this.#prompts.length = 0;
        this.#writeText(
          JSON.stringify({ type: 'error', message: `the session can no longer be written: ${error instanceof Error ? error.message : String(error)}` }),
        );
      })
      .finally(() => {
        this.#worker = undefined;
      });
    return true;
  }

  /** Stops the turn that runs now, if one does; the prompts queued after it still run. */
  interrupt(): void {
    this.#turn?.abort(new Error('interrupted by a control_request'));
  }

  /** Resolves once every queued prompt was answered: to whether a turn failed. Throws a store failure. */
  async drained(): Promise<boolean> {
    while (this.#worker !== undefined) await this.#worker;
    if (this.#broken !== undefined) throw this.#broken.error;
    return this.#failed;
  }

  async #answer(): Promise<void> {
    const running = this.#running;
    const sessionId = () => running.agent.sessionStore.sessionId();
    for (let text = this.#prompts.shift(); text !== undefined; text = this.#prompts.shift()) {
      const controller = new AbortController();
      this.#turn = controller;
      try {
        const result = await running.turn(text, 'print', {
          observe: (promptId) => streamJsonReceiver(sessionId(), promptId, this.#writeText),
          signal: controller.signal,
        });
        this.#writeText(JSON.stringify(resultObject(result, sessionId(), finalAnswer(result))));
        const ok = reportTurn(running.terminal, result);
        const interrupted = result.stopReason === 'aborted' && controller.signal.aborted;
        if (!interrupted && (!ok || result.stopReason === 'aborted' || result.incomplete)) this.#failed = true;
      } finally {
        this.#turn = undefined;
      }
    }
  }
}

/** What a read line says; undefined for a blank line (as a JSON-lines reader skips them). */
function lineOf(read: ReadLine): InputLine | undefined {
  if (read.type === 'too-long') return { type: 'invalid', reason: `the line is ${read.bytes} bytes, over the limit` };
  return read.text.trim() === '' ? undefined : parseInputLine(read.text);
}
