/**
 * What the OpenAI Agents SDK documents of its `Session` interface (packages/agents-core
 * `memory/session.ts`, docs/guides/sessions.mdx, and `MemorySession`, its reference
 * implementation), as tests any session must pass: the id, items in the order added, the
 * newest `limit` items oldest first, `popItem`, `clearSession`, items coming back as they
 * went in. The same suite runs against `MemorySession`, so it asserts the SDK's behaviour
 * and not an adapter's invention.
 */
import type { AgentInputItem, Session } from '@openai/agents-core';
import { expect, it } from 'vitest';

/** A user message, an assistant message, a tool call and its result: the items a run persists. */
export function turnItems(n: number): AgentInputItem[] {
  return [
    { role: 'user', content: `question ${n}` },
    { type: 'function_call', callId: `call_${n}`, name: 'lookup', arguments: JSON.stringify({ n }), status: 'completed', providerData: { index: n } },
    { type: 'function_call_result', callId: `call_${n}`, name: 'lookup', status: 'completed', output: { type: 'text', text: `result ${n}` } },
    { role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: `answer ${n}` }] },
  ] as AgentInputItem[];
}

/** Registers the behaviours; `make(sessionId?)` gives a session (a new one without an id). */
export function sessionBehaviours(make: (sessionId?: string) => Promise<Session>): void {
  it('getSessionId returns the id the session was made with, and a made-up one stays the same', async () => {
    expect(await (await make('chat-given')).getSessionId()).toBe('chat-given');
    const session = await make();
    const id = await session.getSessionId();
    expect(id).toMatch(/\S/);
    expect(await session.getSessionId()).toBe(id);
  });

  it('getItems returns every item in the order addItems added them, unchanged', async () => {
    const session = await make();
    await session.addItems(turnItems(1));
    await session.addItems(turnItems(2));
    expect(await session.getItems()).toEqual([...turnItems(1), ...turnItems(2)]);
  });

  it('getItems(limit) returns the newest limit items, oldest first; all when limit is larger; none for 0', async () => {
    const session = await make();
    await session.addItems([...turnItems(1), ...turnItems(2)]);
    expect(await session.getItems(3)).toEqual([...turnItems(2)].slice(1));
    expect(await session.getItems(100)).toEqual([...turnItems(1), ...turnItems(2)]);
    expect(await session.getItems(0)).toEqual([]);
  });

  it('addItems([]) changes nothing', async () => {
    const session = await make();
    await session.addItems([]);
    expect(await session.getItems()).toEqual([]);
    await session.addItems(turnItems(1));
    await session.addItems([]);
    expect(await session.getItems()).toEqual(turnItems(1));
  });

  it('popItem removes the newest item and returns it; on an empty session it returns undefined', async () => {
    const session = await make();
    expect(await session.popItem()).toBeUndefined();
    await session.addItems(turnItems(1));
    expect(await session.popItem()).toEqual(turnItems(1)[3]);
    expect(await session.popItem()).toEqual(turnItems(1)[2]);
    expect(await session.getItems()).toEqual(turnItems(1).slice(0, 2));
    await session.addItems(turnItems(2).slice(0, 1));
    expect(await session.getItems()).toEqual([...turnItems(1).slice(0, 2), turnItems(2)[0]]);
  });

  it('clearSession removes every item, keeps the id, and the session takes new items after', async () => {
    const session = await make();
    const id = await session.getSessionId();
    await session.addItems(turnItems(1));
    await session.clearSession();
    expect(await session.getItems()).toEqual([]);
    expect(await session.getSessionId()).toBe(id);
    expect(await session.popItem()).toBeUndefined();
    await session.addItems(turnItems(2));
    expect(await session.getItems()).toEqual(turnItems(2));
  });

  it('gives items back as copies: changing what a call returned changes nothing stored', async () => {
    const session = await make();
    await session.addItems(turnItems(1));
    const items = await session.getItems();
    (items[0] as { content: string }).content = 'changed';
    items.pop();
    expect(await session.getItems()).toEqual(turnItems(1));
  });
}
