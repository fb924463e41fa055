import { createHash } from 'node:crypto';
import { anySignal } from '../any-signal.js';
import { AbortedError, ProviderError } from '../errors.js';
import type { ImageBlock, Message, StopReason, SystemMessage } from '../messages.js';
import type { ProviderEvent, ProviderRequest } from './provider.js';
import { MessageAssembler } from './message-assembler.js';

/**
 * The SDKs' request timeout (10 minutes), also the stream's idle timeout, when a provider's
 * `timeoutMs` is not set.
 */
export const DEFAULT_TIMEOUT_MS = 600_000;

/** A message of the conversation that is a turn of the wire (system messages go in the request's own field). */
export type TurnMessage = Exclude<Message, SystemMessage>;

/**
 * The conversation as the turns of a wire that wants user and assistant turns to alternate
 * (Anthropic Messages, Bedrock Converse): each message but the system ones becomes a turn of
 * blocks by `turn`; a turn of no blocks is dropped, and consecutive turns of one role are merged
 * into one (a tool result after a prompt, a compaction before one).
 */
export function alternatingTurns<Block>(
  messages: readonly Message[],
  turn: (message: TurnMessage) => { role: 'user' | 'assistant'; content: Block[] },
): { role: 'user' | 'assistant'; content: Block[] }[] {
  const wire: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const { role, content } = turn(message);
    if (content.length === 0) continue;
    const last = wire.at(-1);
    if (last?.role === role) last.content.push(...content);
    else wire.push({ role, content });
  }
  return wire;
}

/**
 * How a compaction summary is sent: as a user message, framed so the model reads it as
 * notes about the earlier conversation rather than a new request.
 */
export function compactionText(summary: string): string {
  return `[Summary of the earlier conversation, which was compacted to save context. Continue from it.]\n\n${summary}`;
}

/**
 * What a wire that cannot carry an image in a tool result gets instead: one line per image,
 * so the model knows there was one and what it was.
 */
export function omittedImagesText(images: readonly ImageBlock[], why: string): string {
  return images.map((image) => `[${image.media_type} image of ${Math.round((image.data.length * 3) / 4 / 1024)} KB not shown: ${why}]`).join('\n');
}

/** How an error tool result is marked on wires without an `is_error` flag (OpenAI Chat). */
export const TOOL_ERROR_PREFIX = '[tool error] ';

/**
 * A tool-call id another provider wrote, made acceptable to a wire that restricts ids.
 * Ids that already fit are unchanged, so a provider's own ids go back exactly as they came;
 * a changed id gets a hash of the original so two ids never collapse into one. The same id
 * always maps to the same result, so calls and their results still pair up.
 */
export function fitToolCallId(id: string, rule: { pattern: RegExp; invalid: RegExp; maxLength: number }): string {
  if (rule.pattern.test(id) && id.length <= rule.maxLength) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  const cleaned = id.replace(rule.invalid, '_').slice(0, rule.maxLength - hash.length - 1);
  return `${cleaned}_${hash}`;
}

/**
 * Cancellation for one provider call: the caller's signal, plus an idle watchdog. The SDKs'
 * `timeout` covers the wait for response headers only; once a stream is open, the watchdog
 * abandons it when no event arrives for `idleMs`.
 */
export class CallControl {
  readonly signal: AbortSignal;
  readonly #caller: AbortSignal;
  readonly #idle = new AbortController();
  readonly #idleMs: number;
  readonly #unlink: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(caller: AbortSignal, idleMs: number) {
    this.#caller = caller;
    this.#idleMs = idleMs;
    const { signal, dispose } = anySignal([caller, this.#idle.signal]);
    this.signal = signal;
    this.#unlink = dispose;
  }

  get callerAborted(): boolean {
    return this.#caller.aborted;
  }

  get idleExpired(): boolean {
    return this.#idle.signal.aborted;
  }

  /**
   * (Re)starts the idle timer; call on every stream event. The timer is made once and then
   * re-armed in place (`refresh`): a stream sends hundreds of events a message, and a new
   * timer for each was a good part of what a provider call allocates.
   */
  touch(): void {
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.#idle.abort(), this.#idleMs);
    else this.#timer.refresh();
  }

  /** Ends the watchdog, and the call's link to the caller's signal (which may outlive the call). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#unlink();
  }

  /**
   * Waits for the SDK call, but gives up as soon as the call is cancelled — an SDK may be
   * asleep between retries. A result that arrives after that is released with `dispose`.
   */
  async race<T>(call: Promise<T>, dispose: (value: T) => void): Promise<T> {
    const signal = this.signal;
    if (signal.aborted) {
      call.then(dispose, () => {});
      throw new AbortedError();
    }
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => {
        call.then(dispose, () => {});
        reject(new AbortedError());
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([call, aborted]);
    } finally {
      if (onAbort) signal.removeEventListener('abort', onAbort);
    }
  }

  /** The error that ends a cancelled call: the caller's abort, or the idle watchdog. */
  cancellation(provider: string): Error {
    if (this.#caller.aborted) return abortedError(this.#caller);
    return new ProviderError(provider, `${provider}: no data from the stream for ${this.#idleMs} ms; the request was abandoned`, {
      type: 'idle_timeout',
      retryable: true,
    });
  }
}

export function abortedError(signal: AbortSignal): AbortedError {
  const reason: unknown = signal.reason;
  const message = reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'the request was aborted';
  return new AbortedError(message, { cause: reason });
}

const DROP_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_BODY_TIMEOUT']);

/** Whether an error (or one of its causes) is the connection going away mid-response. */
export function isConnectionDrop(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof TypeError && current.message === 'terminated') return true;
    const code: unknown = (current as { code?: unknown }).code;
    if (typeof code === 'string' && DROP_CODES.has(code)) return true;
  }
  return false;
}

/** A stream that ended (cleanly or not) before the message was complete. */
export function droppedStreamError(provider: string, cause?: unknown): ProviderError {
  const detail = cause instanceof Error ? ` (${cause.message})` : '';
  return new ProviderError(
    provider,
    `${provider}: the connection dropped before the message was complete${detail}`,
    {
      type: 'stream_dropped',
      retryable: true,
    },
    cause === undefined ? undefined : { cause },
  );
}

/** How one wire streams a message: open the HTTP stream, feed its events, say how it ended. */
export interface WireStream<Event> {
  provider: string;
  model: string;
  idleMs: number;
  /** What the call asks for: the usage of a call cut short before the wire reported it is estimated from it. */
  request: ProviderRequest;
  /** Starts the request; the stream's `controller` cancels it. */
  open(signal: AbortSignal): Promise<AsyncIterable<Event> & { controller: AbortController }>;
  /** Feeds one wire event to the assembler. */
  apply(event: Event, assembler: MessageAssembler): void;
  /** The stop reason once the wire said the message is complete; undefined while it has not. */
  finished(assembler: MessageAssembler): { stopReason: StopReason; raw: string | undefined } | undefined;
  /** Maps an SDK error to the error the stream ends with. */
  toError(error: unknown): Error;
}

/**
 * The lifecycle every SDK-backed provider shares: cancel on abort and on idle silence,
 * stream events as they are assembled, then end with exactly one `message-end` — or with
 * an `error` carrying only the complete text when the stream was cut short.
 */
export async function* streamWire<Event>(wire: WireStream<Event>, signal: AbortSignal): AsyncGenerator<ProviderEvent> {
  const control = new CallControl(signal, wire.idleMs);
  const assembler = new MessageAssembler(wire.request);
  const fail = (error: Error): ProviderEvent => {
    const partial = assembler.partial(wire.provider, wire.model, control.callerAborted ? 'aborted' : 'error', error);
    return partial ? { type: 'error', error, partial } : { type: 'error', error };
  };
  try {
    const stream = await control.race(wire.open(control.signal), (late) => late.controller.abort());
    control.touch();
    for await (const event of stream) {
      control.touch();
      wire.apply(event, assembler);
      for (const each of assembler.drain()) yield each;
    }
    control.stop();
    const end = wire.finished(assembler);
    // The SDKs end the iteration quietly when their signal aborts.
    if (control.callerAborted || (end === undefined && control.idleExpired)) {
      yield fail(control.cancellation(wire.provider));
    } else if (end === undefined) {
      yield fail(droppedStreamError(wire.provider));
    } else {
      yield { type: 'message-end', message: assembler.message(wire.provider, wire.model, end.stopReason, end.raw) };
    }
  } catch (error) {
    control.stop();
    yield fail(control.signal.aborted ? control.cancellation(wire.provider) : wire.toError(error));
  } finally {
    control.stop();
  }
}
