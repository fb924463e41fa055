/**
 * panto's A2A request handler: the SDK's `A2ARequestHandler`, which its
 * `JsonRpcTransportHandler` dispatches JSON-RPC calls to, on the session service. A context is a
 * session of the caller's, a task a turn of it (see task-view.ts), read from the session's log
 * on every call — no task store, no in-memory bus shared between calls — so any Lambda instance
 * answers for a task another one runs. Cancelling a task is the turn's stop request, which the
 * turn's process notices at its next lease renewal, wherever it runs.
 */
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { PushNotificationNotSupportedError, RequestMalformedError, TaskNotCancelableError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import { TurnNotRunningError } from '@panto/aws/service';
import { type ApprovalDecision, InvalidSessionIdError, SessionNotFoundError } from '@panto/core/agent-kit';
import type { ProviderResolver } from '../agent/provider-resolver.js';
import type { ServiceLimits } from '../config.js';
import { type HttpError, toHttpError } from '../errors.js';
import type { AdminService } from '../services/admin-service.js';
import type { TreeService } from '../services/tree-service.js';
import type { TurnService } from '../services/turn-service.js';
import { a2aMessage, textPart } from './a2a-parts.js';
import { taskNotFound, toA2AError } from './a2a-errors.js';
import { checkRole, decisionsOf, promptOf } from './message-target.js';
import { parseTaskId, taskIdOf } from './task-id.js';
import { followTask, streamStartedTurn, type TaskStreamDeps, taskWithFailure } from './task-stream.js';
import { answerText, type TaskSpan, taskOf, taskSpan } from './task-view.js';

/** What the handler runs on: the session service's parts and the app's limits. */
export interface A2ADeps {
  turns: TurnService;
  tree: TreeService;
  admin: AdminService;
  providers: ProviderResolver;
  limits: ServiceLimits;
  report(failure: HttpError, what: string, error: unknown): void;
}

/** How a message opens its turn: a prompt in a session, or decisions in a task waiting for them. */
type Opening =
  | { type: 'prompt'; sessionId: string; text: string /** The session was made for this message (a new context). */; created: boolean }
  | { type: 'decisions'; sessionId: string; taskId: string; decisions: ApprovalDecision[]; answered: string };

/** The owner a call is made for: the caller the app authenticated (the JSON-RPC route sets it as the context's user). */
function ownerOf(context: ServerCallContext): string {
  const owner = context.user?.isAuthenticated === true ? context.user.userName : '';
  // The route authenticates every call before the handler runs: no owner is a defect, never a shared scope.
  if (owner === '') throw new TypeError('an A2A call reached the handler without an authenticated owner');
  return owner;
}

export class PantoRequestHandler implements A2ARequestHandler {
  readonly #deps: A2ADeps;
  readonly #card: AgentCard;

  constructor(deps: A2ADeps, card: AgentCard) {
    this.#deps = deps;
    this.#card = card;
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.#card;
  }

  async getAuthenticatedExtendedAgentCard(_params: GetExtendedAgentCardRequest, _context: ServerCallContext): Promise<AgentCard> {
    throw new UnsupportedOperationError('there is no extended card: every caller gets the public one');
  }

  /** Runs the turn within the synchronous deadline (as `POST …/messages`), and answers the task as stored. */
  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Task> {
    return this.#guard('SendMessage', async () => {
      const { limits, turns } = this.#deps;
      const owner = ownerOf(context);
      const opening = await this.#opening(params.message, owner);
      const options = { signal: AbortSignal.timeout(limits.deadlineMs), deadlineMs: limits.deadlineMs };
      const outcome = await this.#orForget(opening, owner, () =>
        opening.type === 'prompt'
          ? turns.turn(owner, opening.sessionId, opening.text, options)
          : turns.decide(owner, opening.sessionId, opening.decisions, options),
      );
      const taskId = opening.type === 'prompt' ? taskIdOf(opening.sessionId, outcome.opened.id) : opening.taskId;
      const error = outcome.step.stopReason === 'error' ? outcome.step.error : undefined;
      const task = taskOf((await this.#read(owner, taskId)).span, { historyLength: params.configuration?.historyLength });
      return taskWithFailure(task, error === undefined ? null : toHttpError(error).body.error.message);
    });
  }

  /** Stores the opening (a 404, 409 or 429 is an error before any event), then streams the turn (task-stream.ts). */
  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const { started, opening, owner } = await this.#guard('SendStreamingMessage', async () => {
      const owner = ownerOf(context);
      const opening = await this.#opening(params.message, owner);
      const start = opening.type === 'prompt' ? opening.text : { decisions: opening.decisions };
      const started = await this.#orForget(opening, owner, () =>
        this.#deps.turns.start(owner, opening.sessionId, start, { deadlineMs: this.#deps.limits.streamDeadlineMs }),
      );
      return { owner, opening, started };
    });
    const taskId = opening.type === 'prompt' ? taskIdOf(opening.sessionId, started.opened.id) : opening.taskId;
    const ids = { taskId, contextId: opening.sessionId };
    const history = opening.type === 'prompt' ? [a2aMessage('user', { ...ids, messageId: started.opened.id }, [textPart(opening.text)])] : [];
    yield* streamStartedTurn(this.#streamDeps(owner, taskId), started, ids, { answered: opening.type === 'prompt' ? '' : opening.answered, history });
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.#guard('GetTask', async () => taskOf((await this.#read(ownerOf(context), params.id)).span, { historyLength: params.historyLength }));
  }

  /**
   * Asks the task's turn to stop (wherever it runs) and waits, up to a lease term, for it to
   * end; answers the task as stored then. A task that has ended, or waits for approval (deny
   * its calls instead: that is the decision the model is told of), is not cancelable.
   */
  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.#guard('CancelTask', async () => {
      const owner = ownerOf(context);
      const { span } = await this.#read(owner, params.id);
      if (!span.running) {
        const why = span.pending.length > 0 ? 'it waits for approval: answer "deny" in the task instead' : 'it has ended';
        throw new TaskNotCancelableError({ message: `task ${span.taskId} cannot be canceled: ${why}`, metadata: { code: 'task_not_cancelable' } });
      }
      try {
        await this.#deps.turns.stop(owner, span.sessionId);
      } catch (error) {
        // It ended between the read and the stop: answer it as it ended.
        if (!(error instanceof TurnNotRunningError)) throw error;
      }
      const signal = AbortSignal.timeout(this.#deps.limits.leaseMs);
      for await (const event of await this.#deps.turns.follow(owner, span.sessionId, { signal, pollMs: this.#deps.limits.eventsPollMs })) {
        if (event.type === 'end') break;
      }
      return taskOf((await this.#read(owner, params.id)).span);
    });
  }

  async *resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const { owner, span, entryCount } = await this.#guard('SubscribeToTask', async () => {
      const owner = ownerOf(context);
      return { owner, ...(await this.#read(owner, params.id)) };
    });
    yield* followTask(this.#streamDeps(owner, span.taskId), owner, span, entryCount);
  }

  async listTasks(_params: ListTasksRequest, _context: ServerCallContext): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('ListTasks is not served: GET /sessions lists your contexts, GET /sessions/{id} a context’s turns');
  }

  async createTaskPushNotificationConfig(_params: TaskPushNotificationConfig, _context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }

  async getTaskPushNotificationConfig(_params: GetTaskPushNotificationConfigRequest, _context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }

  async listTaskPushNotificationConfigs(
    _params: ListTaskPushNotificationConfigsRequest,
    _context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    throw new PushNotificationNotSupportedError();
  }

  async deleteTaskPushNotificationConfig(_params: DeleteTaskPushNotificationConfigRequest, _context: ServerCallContext): Promise<void> {
    throw new PushNotificationNotSupportedError();
  }

  /** What the message opens: decisions in the task it names, else a prompt in its context (a new session when it names none). */
  async #opening(message: Message | undefined, owner: string): Promise<Opening> {
    if (message === undefined) throw new RequestMalformedError({ message: 'message: required', metadata: { code: 'invalid_message', status: '400' } });
    checkRole(message);
    if (message.taskId !== '') {
      const { span } = await this.#read(owner, message.taskId);
      if (message.contextId !== '' && message.contextId !== span.sessionId) {
        throw new RequestMalformedError({ message: 'contextId: not the context of the task', metadata: { code: 'invalid_message', status: '400' } });
      }
      return { type: 'decisions', sessionId: span.sessionId, taskId: span.taskId, decisions: decisionsOf(message, span), answered: answerText(span.entries) };
    }
    const text = promptOf(message);
    if (message.contextId !== '') return { type: 'prompt', sessionId: message.contextId, text, created: false };
    return { type: 'prompt', sessionId: await this.#newContext(owner, message), text, created: true };
  }

  /**
   * Runs `start`; when it fails and the session was made for this message and still holds
   * nothing (refused before the prompt was stored: a limit, say), the session goes too — a
   * refused message leaves nothing behind. One that holds entries is kept, whatever failed.
   */
  async #orForget<T>(opening: Opening, owner: string, start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      if (opening.type === 'prompt' && opening.created) await this.#forgetIfEmpty(owner, opening.sessionId);
      throw error;
    }
  }

  async #forgetIfEmpty(owner: string, sessionId: string): Promise<void> {
    try {
      const { tree } = await this.#deps.tree.treeAndTurn(owner, sessionId);
      if (tree.entries.length === 0) await this.#deps.admin.delete(owner, sessionId);
    } catch {
      // The refusal is the answer the caller gets; a session that could not be read or removed
      // stays an empty one in the owner's list, which loses nothing.
    }
  }

  /** A new session of the owner's: on the model the message's metadata names (`"model": "provider/model"`), else the server's default. */
  async #newContext(owner: string, message: Message): Promise<string> {
    const named = (message.metadata as { model?: unknown } | undefined)?.model;
    if (named !== undefined && (typeof named !== 'string' || !named.includes('/'))) {
      throw new RequestMalformedError({ message: 'metadata.model: "provider/model"', metadata: { code: 'invalid_message', status: '400', field: 'model' } });
    }
    const [provider, ...model] = named === undefined ? [] : named.split('/');
    const choice = provider === undefined ? {} : { provider, model: model.join('/') };
    const session = await this.#deps.admin.create(owner, { provider: this.#deps.providers(choice, { check: true }), chosen: named !== undefined });
    return session.metadata.id;
  }

  /** The task `taskId` names, read from its session; `TaskNotFoundError` for one the owner has not (another's, none, no task id). */
  async #read(owner: string, taskId: string): Promise<{ span: TaskSpan; entryCount: number }> {
    const ids = parseTaskId(taskId);
    if (ids === null) throw taskNotFound(taskId);
    let read: Awaited<ReturnType<TreeService['treeAndTurn']>>;
    try {
      read = await this.#deps.tree.treeAndTurn(owner, ids.sessionId);
    } catch (error) {
      if (error instanceof SessionNotFoundError || error instanceof InvalidSessionIdError) throw taskNotFound(taskId);
      throw error;
    }
    const span = taskSpan(read.tree, ids.sessionId, ids.promptId, read.turn !== null);
    if (span === null) throw taskNotFound(taskId);
    return { span, entryCount: read.tree.entries.length };
  }

  #streamDeps(owner: string, taskId: string): TaskStreamDeps {
    const { turns, limits, report } = this.#deps;
    return { turns, limits, report, read: async () => (await this.#read(owner, taskId)).span };
  }

  /** Runs `work`, its failures as A2A errors (the service's mapped from their HTTP answer: a2a-errors.ts). */
  async #guard<T>(method: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toA2AError(error, this.#deps.report, `A2A ${method}`);
    }
  }
}
