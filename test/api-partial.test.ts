/**
 * Resume mid-word: while a turn streams, the answer so far is readable by any process — in
 * `GET /sessions/{id}` (`turn.partial`) and as `partial` events of `GET /sessions/{id}/events`
 * before the `message` — stored at most once a second (none in the turn's first second), and
 * gone, in the same transaction, once the message is stored. On a frozen clock: the second
 * passes when the test says so.
 */
import type { SessionContentsJson } from '../functions/src/api/response-schemas.js';
import { ManualClock, waitUntil } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, json, snapshot, sseReader, startApi } from './api-harness.js';

describe('the answer of a running turn, from any connection', () => {
  let api: ApiHarness;
  const clock = new ManualClock(Date.now());
  beforeAll(async () => {
    api = await startApi('api-partial', { clock, limits: { eventsPollMs: 50 } });
  });
  afterAll(async () => {
    await api?.close();
  });

  const read = (id: string): Promise<SessionContentsJson> => api.call('alice', 'GET', `/sessions/${id}`).then((r) => json<SessionContentsJson>(r, 200));
  const partialItems = async (): Promise<number> => (await snapshot(api.aws)).items.filter((item) => item.sk?.S === 'P#TURN').length;
  const partialText = (contents: SessionContentsJson): string | undefined => {
    const block = contents.turn?.partial?.message.content[0];
    return block?.type === 'text' ? block.text : undefined;
  };

  it('shows the answer so far once a second has passed, sends it to followers before the message, and deletes it with the message', async () => {
    const { id } = (await (await api.call('alice', 'POST', '/sessions', {})).json()) as { id: string };
    api.fake.enqueue({ text: 'The first words, then the rest of a long answer.', pauseAfterDeltas: 2 });
    const stream = sseReader(await api.call('alice', 'POST', `/sessions/${id}/messages/stream`, { text: 'take your time' }));
    const early = await stream.until((event) => event.event === 'text-delta');
    const deltas = [early.at(-1)!];
    deltas.push(...(await stream.until((event) => event.event === 'text-delta')).filter((event) => event.event === 'text-delta'));
    const soFar = deltas.map((event) => (event.data as { delta: string }).delta).join('');

    // Within the turn's first second nothing is stored: the turn is running, with no partial.
    const before = await read(id);
    expect(before.turn).toMatchObject({ running: true, partial: null });
    expect(await partialItems()).toBe(0);

    clock.advance(1_000);
    await waitUntil(async () => partialText(await read(id)) === soFar, { message: 'the partial answer is stored', timeoutMs: 15_000 });
    const shown = await read(id);
    expect(shown.turn?.partial?.message).toMatchObject({ role: 'assistant', provider: 'anthropic' });
    expect(shown.turn?.partial?.message).not.toHaveProperty('stop_reason');

    // A follower (a reload) sees the partial answer first, then the message that replaces it.
    const follower = sseReader(await api.call('alice', 'GET', `/sessions/${id}/events`));
    const untilPartial = await follower.until((event) => event.event === 'partial');
    expect(untilPartial.at(-1)!.data).toMatchObject({ message: { content: [{ type: 'text', text: soFar }] } });
    api.fake.resume();
    await stream.rest();
    const followed = await follower.rest();
    const answer = followed.find((event) => event.event === 'message' && (event.data as { message: { role: string } }).message.role === 'assistant');
    const text = (answer!.data as { message: { content: { text: string }[] } }).message.content[0]!.text;
    expect(text.startsWith(soFar)).toBe(true);
    expect(text).toBe('The first words, then the rest of a long answer.');

    // Stored with the message: no partial left, and the turn is over.
    expect(await partialItems()).toBe(0);
    expect((await read(id)).turn).toBeNull();
  });

  it('stores a turn that ends within its first second with no partial at all', async () => {
    const { id } = (await (await api.call('alice', 'POST', '/sessions', {})).json()) as { id: string };
    api.fake.enqueue({ text: 'A quick answer, in several words.' });
    await json(await api.call('alice', 'POST', `/sessions/${id}/messages`, { text: 'quick' }), 200);
    expect(await partialItems()).toBe(0);
  });
});
