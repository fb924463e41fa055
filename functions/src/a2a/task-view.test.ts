import { TaskState } from '@a2a-js/sdk';
import type { DiskMessageRecord, RecordEntry } from '@panto/core';
import { type AssistantMessage, SessionTree } from '@panto/core/agent-kit';
import { describe, expect, it } from 'vitest';
import { parseTaskId, taskIdOf } from './task-id.js';
import { answerText, spanState, taskOf, taskSpan } from './task-view.js';

const SESSION = '0190a1b2-0000-7000-8000-000000000001';
const usage = { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 };
let clock = 0;

function entry(id: string, parent: string | null, message: DiskMessageRecord['message']): RecordEntry {
  return { type: 'message', id, parent_id: parent, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString(), message };
}
const user = (text: string) => ({ role: 'user' as const, content: text });
function assistant(text: string, stop: AssistantMessage['stop_reason'] = 'end_turn', extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return { role: 'assistant', content: text === '' ? [] : [{ type: 'text', text }], provider: 'p', model: 'm', usage, stop_reason: stop, ...extra };
}

/** p1 → a1 (end_turn) → p2 → a2 (text and a call that waits for approval) */
function paused(): SessionTree {
  return SessionTree.of([
    entry('p1', null, user('first')),
    entry('a1', 'p1', assistant('one')),
    entry('p2', 'a1', user('pay bob')),
    entry('a2', 'p2', {
      ...assistant('Paying.', 'awaiting_approval'),
      content: [
        { type: 'text', text: 'Paying.' },
        { type: 'tool_call', id: 'call_1', name: 'pay', input: { to: 'bob' } },
      ],
      approval_requests: [{ tool_call_id: 'call_1', reason: 'it may pay' }],
    }),
  ]);
}

describe('task ids', () => {
  it('round-trip the session and the prompt entry, and name nothing for anything else', () => {
    expect(parseTaskId(taskIdOf(SESSION, 'p1'))).toEqual({ sessionId: SESSION, promptId: 'p1' });
    for (const forged of ['', '~', `${SESSION}`, `${SESSION}~p1~p2`, `${SESSION}~..`, `../x~p1`, `${SESSION}~a b`, `${'x'.repeat(200)}~p1`]) {
      expect(parseTaskId(forged), forged).toBeNull();
    }
  });
});

describe('a task read from the log', () => {
  it('is the turn from its prompt to the next one: completed, its answer the artifact, its history the prompt and the answer', () => {
    const span = taskSpan(paused(), SESSION, 'p1', false)!;
    expect(span.entries.map((each) => each.id)).toEqual(['p1', 'a1']);
    const task = taskOf(span);
    expect(task).toMatchObject({ id: `${SESSION}~p1`, contextId: SESSION, status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined } });
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'one' });
    expect(task.history.map((message) => message.messageId)).toEqual(['p1', 'a1']);
    expect(taskOf(span, { historyLength: 1 }).history.map((message) => message.messageId)).toEqual(['a1']);
    expect(taskOf(span, { historyLength: 0 }).history).toEqual([]);
  });

  it('waits for input when its turn paused on a call that asks, naming the call in words and as data', () => {
    const span = taskSpan(paused(), SESSION, 'p2', false)!;
    expect(span.pending.map((pending) => pending.toolCall.id)).toEqual(['call_1']);
    const status = taskOf(span).status!;
    expect(status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(status.message?.parts[1]?.content).toEqual({
      $case: 'data',
      value: { pending_approvals: [{ tool_call_id: 'call_1', tool: 'pay', input: { to: 'bob' }, reason: 'it may pay' }] },
    });
  });

  it('is working only when a turn runs and its span holds the active leaf: an earlier task of the session has ended', () => {
    expect(spanState(taskSpan(paused(), SESSION, 'p2', true)!).state).toBe(TaskState.TASK_STATE_WORKING);
    expect(spanState(taskSpan(paused(), SESSION, 'p1', true)!).state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('says canceled for a stopped answer, failed for a failed one and for a prompt no answer followed', () => {
    const tree = SessionTree.of([
      entry('p1', null, user('stop me')),
      entry('a1', 'p1', assistant('half', 'aborted')),
      entry('p2', 'a1', user('fail')),
      entry('a2', 'p2', assistant('', 'error', { error_message: 'overloaded' })),
      entry('p3', 'a2', user('nothing came')),
    ]);
    expect(spanState(taskSpan(tree, SESSION, 'p1', false)!)).toMatchObject({ state: TaskState.TASK_STATE_CANCELED });
    expect(spanState(taskSpan(tree, SESSION, 'p2', false)!)).toEqual({ state: TaskState.TASK_STATE_FAILED, reason: 'overloaded' });
    expect(spanState(taskSpan(tree, SESSION, 'p3', false)!).state).toBe(TaskState.TASK_STATE_FAILED);
  });

  it('finds no task for an entry that is no prompt, or that the session does not hold', () => {
    expect(taskSpan(paused(), SESSION, 'a1', false)).toBeNull();
    expect(taskSpan(paused(), SESSION, 'p9', false)).toBeNull();
  });

  it('follows a task off the active branch along its newest entries', () => {
    const tree = SessionTree.of([
      entry('p1', null, user('first')),
      entry('a1', 'p1', assistant('old answer')),
      entry('b1', 'p1', assistant('newer answer')),
      entry('p2', null, user('a new root')),
      entry('a2', 'p2', assistant('root answer')),
    ]);
    expect(taskSpan(tree, SESSION, 'p1', false)!.entries.map((each) => each.id)).toEqual(['p1', 'b1']);
  });

  it('joins the text of every answer of the turn with a blank line', () => {
    expect(
      answerText([entry('p', null, user('q')), entry('x', 'p', assistant('one')), entry('y', 'x', assistant('')), entry('z', 'y', assistant('two'))]),
    ).toBe('one\n\ntwo');
  });
});
