/**
 * A task as a stream of A2A events: a turn this request started (`SendStreamingMessage`), or
 * one another request runs, read from the session as it is written (`SubscribeToTask`). The
 * first event is the task; then its answer as artifact updates while the model writes; the
 * last, the task's status once the turn has ended — read from the log, as `GetTask` reads it.
 * A started turn publishes on the SDK's event bus and the stream drains its queue
 * (`DefaultExecutionEventBus`, `ExecutionEventQueue`): the queue ends at a final or
 * input-required status, as the SDK's own handler does.
 */
import { type Message as A2AMessage, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutionEvent, DefaultExecutionEventBus, type ExecutionEventBus, ExecutionEventQueue } from '@a2a-js/sdk/server';
import type { ServiceLimits } from '../config.js';
import { type HttpError, toHttpError } from '../errors.js';
import type { TurnService } from '../services/turn-service.js';
import type { StartedTurn } from '../services/turn-start.js';
import { answerArtifact } from './a2a-parts.js';
import { answerText, type TaskSpan, taskOf } from './task-view.js';

/** What streaming a task needs: the turns, the limits, a way to read the task again, and where unseen failures go. */
export interface TaskStreamDeps {
  turns: TurnService;
  limits: ServiceLimits;
  /** The task as the log tells it now. */
  read(): Promise<TaskSpan>;
  report(failure: HttpError, what: string, error: unknown): void;
}

/** The task and context a stream is of. */
interface TaskIds {
  taskId: string;
  contextId: string;
}

/**
 * Streams a started turn (its opening stored, its lease held) and releases it at the end. The
 * turn runs to its end whether or not the client reads on (as a streamed turn of the HTTP API
 * with `on_disconnect: "continue"`). `answered`: the task's answer before this turn (a task
 * resumed after approval has one); `history`: the messages the first event shows.
 */
export async function* streamStartedTurn(
  deps: TaskStreamDeps,
  started: StartedTurn,
  ids: TaskIds,
  { answered, history }: { answered: string; history: A2AMessage[] },
): AsyncGenerator<StreamResponse> {
  yield { payload: { $case: 'task', value: workingTask(ids, answered, history) } };
  const bus = new DefaultExecutionEventBus();
  const queue = new ExecutionEventQueue(bus);
  const running = publishTurn(deps, bus, started, ids, answered);
  try {
    for await (const event of queue.events()) yield streamResponse(event);
  } finally {
    queue.stop();
    await running;
  }
}

/** Runs the turn, publishing its answer as it is written and, at the end, the task as stored. Never rejects. */
async function publishTurn(deps: TaskStreamDeps, bus: ExecutionEventBus, started: StartedTurn, ids: TaskIds, answered: string): Promise<void> {
  let written = answered !== '';
  let messageEnded = written;
  let failure: string | null = null;
  try {
    const outcome = await deps.turns.run(started, {
      signal: AbortSignal.timeout(deps.limits.streamDeadlineMs),
      receiver: (event) => {
        if (event.type === 'text-delta') {
          // A new message's text follows the last one's after a blank line, as the stored answer reads.
          const text = written && messageEnded ? `\n\n${event.delta}` : event.delta;
          written = true;
          messageEnded = false;
          bus.publish(AgentEvent.artifactUpdate({ ...ids, artifact: answerArtifact(text), append: true, lastChunk: false, metadata: undefined }));
        }
        if (event.type === 'entries-persisted' && event.records.some((record) => record.type === 'message' && record.message.role === 'assistant')) {
          messageEnded = true;
        }
      },
    });
    const error = outcome.step.stopReason === 'error' ? outcome.step.error : undefined;
    if (error !== undefined) failure = toHttpError(error).body.error.message;
  } catch (error) {
    const http = toHttpError(error);
    deps.report(http, `A2A streamed turn of task ${ids.taskId}`, error);
    failure = http.body.error.message;
  } finally {
    await started.lock.release();
  }
  await publishEnd(deps, bus, ids, failure);
}

/** The task as the log tells it once its turn has ended: the whole answer (replacing the chunks), then its status; the bus is finished. */
async function publishEnd(deps: TaskStreamDeps, bus: ExecutionEventBus, ids: TaskIds, failure: string | null): Promise<void> {
  try {
    for (const event of endEvents(taskWithFailure(taskOf(await deps.read()), failure))) bus.publish(event);
  } catch (error) {
    const http = toHttpError(error);
    deps.report(http, `reading A2A task ${ids.taskId} after its turn`, error);
    bus.publish(AgentEvent.statusUpdate({ ...ids, status: { state: TaskState.TASK_STATE_FAILED, message: undefined, timestamp: now() }, metadata: undefined }));
  } finally {
    bus.finished();
  }
}

/**
 * Follows a task another request runs (`SubscribeToTask`): the task as stored, then its answer
 * as the turn writes it (every poll of the session that finds more), and its status at the end.
 * A task that does not run is the task alone.
 */
export async function* followTask(deps: TaskStreamDeps, owner: string, span: TaskSpan, entryCount: number): AsyncGenerator<StreamResponse> {
  yield { payload: { $case: 'task', value: taskOf(span) } };
  if (!span.running) return;
  const ids = { taskId: span.taskId, contextId: span.sessionId };
  let answer = answerText(span.entries);
  const artifact = (text: string): StreamResponse => ({
    payload: { $case: 'artifactUpdate', value: { ...ids, artifact: answerArtifact(text), append: false, lastChunk: false, metadata: undefined } },
  });
  const signal = AbortSignal.timeout(deps.limits.streamDeadlineMs);
  for await (const event of await deps.turns.follow(owner, span.sessionId, { from: entryCount, signal, pollMs: deps.limits.eventsPollMs })) {
    if (event.type === 'partial') yield artifact(joined(answer, textOfContent(event.partial.message.content)));
    if (event.type === 'message' && event.record.message.role === 'assistant') {
      const text = textOfContent(event.record.message.content);
      if (text !== '') {
        answer = joined(answer, text);
        yield artifact(answer);
      }
    }
  }
  for (const event of endEvents(taskOf(await deps.read()))) yield streamResponse(event);
}

/** The task's last events: its whole answer (when it has one), then its status. */
function endEvents(task: Task): AgentExecutionEvent[] {
  const ids = { taskId: task.id, contextId: task.contextId };
  const events: AgentExecutionEvent[] = [];
  for (const artifact of task.artifacts) events.push(AgentEvent.artifactUpdate({ ...ids, artifact, append: false, lastChunk: true, metadata: undefined }));
  events.push(AgentEvent.statusUpdate({ ...ids, status: task.status, metadata: undefined }));
  return events;
}

/** The task, with the turn's failure (a provider error, as the HTTP API words it) as its status message when it failed. */
export function taskWithFailure(task: Task, failure: string | null): Task {
  if (failure === null || task.status?.state !== TaskState.TASK_STATE_FAILED || task.status.message === undefined) return task;
  const message = { ...task.status.message, parts: [{ ...task.status.message.parts[0]!, content: { $case: 'text' as const, value: failure } }] };
  return { ...task, status: { ...task.status, message } };
}

function workingTask(ids: TaskIds, answered: string, history: A2AMessage[]): Task {
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
    artifacts: answered === '' ? [] : [answerArtifact(answered)],
    history,
    metadata: undefined,
  };
}

function streamResponse(event: AgentExecutionEvent): StreamResponse {
  switch (event.kind) {
    case 'message':
      return { payload: { $case: 'message', value: event.data } };
    case 'task':
      return { payload: { $case: 'task', value: event.data } };
    case 'statusUpdate':
      return { payload: { $case: 'statusUpdate', value: event.data } };
    case 'artifactUpdate':
      return { payload: { $case: 'artifactUpdate', value: event.data } };
    default: {
      const unknown: never = event;
      throw new TypeError(`unknown event ${JSON.stringify(unknown)}`);
    }
  }
}

function textOfContent(content: readonly { type: string; text?: string }[]): string {
  return content.flatMap((block) => (block.type === 'text' && block.text !== undefined ? [block.text] : [])).join('');
}

function joined(before: string, text: string): string {
  return before === '' ? text : text === '' ? before : `${before}\n\n${text}`;
}

function now(): string {
  return new Date().toISOString();
}
