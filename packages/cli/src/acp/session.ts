/**
 * One ACP session: a panto session (started by the host) that a client prompts, cancels and
 * loads. Updates go out in order, and a prompt's response only after every update of its
 * turn; a cancelled turn ends `cancelled`, keeping what it committed.
 */
import {
  RequestError,
  type ContentBlock,
  type PromptResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
  type StopReason,
} from '@agentclientprotocol/sdk';
import type { ToolCallBlock } from '@panto/core';
import type { MCPServerConfig } from '@panto/core/mcp';
import { messagesCost } from '../agent/model-catalog.js';
import type { ACPHost, HostedSession, HostedTurnResult } from './host.js';
import { clientApproval } from './permission.js';
import { promptText } from './prompt-text.js';
import { replayUpdates } from './replay.js';
import { TurnUpdates } from './turn-updates.js';

/** JSON-RPC error codes the server answers with (JSON-RPC 2.0; ACP's resource-not-found). */
export const ERROR_CODES = { invalidRequest: -32600, invalidParams: -32602, internal: -32603, notFound: -32002 } as const;

/** What a session sends its client. */
export interface ClientChannel {
  /** `session/update`. Rejects when the connection is gone. */
  update(params: SessionNotification): Promise<void>;
  /** `session/request_permission`; `signal` withdraws it. */
  requestPermission(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
}

/** An ACP session around a hosted panto session. */
export class ACPSession {
  readonly cwd: string;
  readonly #channel: ClientChannel;
  readonly #log: (line: string) => void;
  readonly #updates: TurnUpdates;
  #hosted: HostedSession | undefined;
  #outbox: Promise<void> = Promise.resolve();
  #sendFailed = false;
  #running: AbortController | undefined;
  /** The running prompt's turn, settled (never rejects). */
  #turn: Promise<unknown> = Promise.resolve();

  private constructor(cwd: string, channel: ClientChannel, log: (line: string) => void) {
    this.cwd = cwd;
    this.#channel = channel;
    this.#log = log;
    this.#updates = new TurnUpdates((update) => this.#send(update), cwd);
  }

  /** Starts the panto session (new, or `sessionId`'s) for the client. Throws what the host throws. */
  static async open(
    host: ACPHost,
    channel: ClientChannel,
    request: { cwd: string; sessionId?: string; mcpServers: readonly MCPServerConfig[] },
  ): Promise<ACPSession> {
    const session = new ACPSession(request.cwd, channel, host.log);
    const updates = session.#updates;
    session.#hosted = await host.start({
      ...request,
      askApproval: clientApproval({
        sessionId: () => session.sessionId,
        request: (params, signal) => channel.requestPermission(params, signal),
        describe: (call) => updates.describe(call),
        log: host.log,
      }),
      toolStarting: (call) => session.#toolStarting(call),
    });
    return session;
  }

  get sessionId(): string {
    return this.#hosted?.sessionId ?? '';
  }

  /** Whether a prompt is running. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Sends the conversation as updates (`session/load`); resolves once all are sent. */
  async replay(): Promise<void> {
    const hosted = this.#started();
    for (const update of replayUpdates(hosted.messages(), this.cwd)) this.#send(update);
    if (hosted.danglingUser !== null) this.#log(`panto: the last prompt of session ${hosted.sessionId} was never answered; it is not resent`);
    await this.#outbox;
  }

  /**
   * Runs a prompt: stored, answered with streamed updates, and resolved with the stop reason
   * once every update was sent. `requestSignal` (the request's own: a `$/cancel_request`, a
   * closed connection) aborts like `session/cancel`.
   */
  async prompt(blocks: readonly ContentBlock[], requestSignal: AbortSignal): Promise<PromptResponse> {
    const hosted = this.#started();
    if (this.#running !== undefined) throw new RequestError(ERROR_CODES.invalidRequest, 'a prompt is already running in this session; cancel it first');
    const prompt = promptText(blocks);
    if (prompt.type === 'refused') throw new RequestError(ERROR_CODES.invalidParams, `prompt refused: ${prompt.reason}`);
    const controller = new AbortController();
    const abort = () => controller.abort(requestSignal.reason);
    requestSignal.addEventListener('abort', abort, { once: true });
    this.#running = controller;
    const turn = hosted.turn(prompt.text, { observe: () => this.#updates.receiver, signal: controller.signal });
    this.#turn = turn.catch(() => undefined);
    try {
      const result = await turn;
      await this.#outbox;
      return promptResponse(result, controller.signal.aborted);
    } catch (error) {
      await this.#outbox;
      if (error instanceof RequestError) throw error;
      throw new RequestError(ERROR_CODES.internal, `the prompt failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.#running = undefined;
      requestSignal.removeEventListener('abort', abort);
    }
  }

  /** `session/cancel`: stops the running prompt (nothing when none runs). */
  cancel(): void {
    this.#running?.abort(new Error('cancelled by the ACP client'));
  }

  /** Cancels what runs, waits for it to write what it committed, and stops what the session started. Never throws. */
  async close(): Promise<void> {
    this.cancel();
    await this.#turn;
    await this.#hosted?.close();
  }

  #started(): HostedSession {
    if (this.#hosted === undefined) throw new RequestError(ERROR_CODES.internal, 'the session has not started');
    return this.#hosted;
  }

  async #toolStarting(call: ToolCallBlock): Promise<void> {
    this.#send(this.#updates.starting(call));
    await this.#outbox;
  }

  #send(update: SessionUpdate | Promise<SessionUpdate>): void {
    this.#outbox = this.#outbox.then(async () => {
      try {
        await this.#channel.update({ sessionId: this.sessionId, update: await update });
      } catch (error) {
        // The client went away (or an update could not be worked out): the turn goes on and
        // is stored; there is nobody to show it to. Said once.
        if (!this.#sendFailed) this.#log(`panto: an update could not be sent to the ACP client: ${error instanceof Error ? error.message : String(error)}`);
        this.#sendFailed = true;
      }
    });
  }
}

/**
 * How the turn ended, in ACP's words: `cancelled` when the client cancelled it (whatever the
 * step made of the abort), the model's own stop otherwise; a failed turn is an error, not a
 * stop reason. `_meta.panto` carries the prompt's entry id, the usage and the cost.
 */
export function promptResponse(result: HostedTurnResult, cancelled: boolean): PromptResponse {
  const cost = messagesCost(result.messages);
  const meta = { panto: { prompt_id: result.promptId, usage: result.usage, cost: { usd: cost.dollars, unpriced: cost.unpriced } } };
  const stopReason = cancelled ? 'cancelled' : acpStopReason(result);
  return { stopReason, _meta: meta };
}

function acpStopReason(result: HostedTurnResult): StopReason {
  switch (result.stopReason) {
    case 'aborted':
      return 'cancelled';
    case 'error':
      throw new RequestError(ERROR_CODES.internal, `the model call failed: ${result.error?.message ?? 'unknown error'} (what the turn said so far is kept)`, {
        prompt_id: result.promptId,
      });
    case 'max_tokens':
      return 'max_tokens';
    case 'refusal':
      return 'refusal';
    case 'tool_use':
      // A step that stops on a tool call stopped at its limit of model calls.
      return result.incomplete ? 'max_turn_requests' : 'end_turn';
    case 'end_turn':
    case 'stop_sequence':
      return 'end_turn';
    case 'awaiting_approval':
      // Only the service pauses a turn for a person's decision; here each call is asked of the
      // client as it comes (session/request_permission), so a pause would be a bug, not an answer.
      throw new RequestError(
        ERROR_CODES.internal,
        'the turn paused on tool calls that wait for a decision panto acp cannot ask for (what it said so far is kept)',
        {
          prompt_id: result.promptId,
        },
      );
    default: {
      const unexpected: never = result.stopReason;
      return unexpected;
    }
  }
}
