import { expect, it } from 'vitest';
import { endOf, type ProviderSuite } from './suite.js';

/** Text and thinking as they stream, and the stop reason the message ends with. */
export function describeTextStreamingContract({ harness, server, run, replay }: ProviderSuite): void {
  const { wire, recorded } = harness;
  it('streams text deltas as they arrive, then commits one message with usage and the real stop reason', async () => {
    replay(recorded.text.body);
    expect(await run()).toEqual([
      { type: 'text-start', index: 0 },
      { type: 'text-delta', index: 0, delta: 'Hello' },
      { type: 'text-delta', index: 0, delta: '! How can' },
      { type: 'text-delta', index: 0, delta: ' I help?' },
      { type: 'text-end', index: 0, text: 'Hello! How can I help?' },
      {
        type: 'message-end',
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: 'Hello! How can I help?' }],
          provider: harness.name,
          model: harness.model,
          usage: recorded.text.usage,
          stop_reason: 'end_turn',
          raw_stop_reason: wire.rawStopReasons.endTurn,
        },
      },
    ]);
    expect(server().requests).toHaveLength(1);
    expect(server().requests[0]).toMatchObject({ method: 'POST', path: wire.path, body: wire.streaming });
  });

  const thinking = recorded.thinking;
  if (thinking) {
    it('streams thinking before the rest of the reply and keeps it in the message as the wire needs it back', async () => {
      replay(thinking.body);
      const events = await run();
      const whole = thinking.deltas.join('');
      expect(events.slice(0, thinking.deltas.length + 2)).toEqual([
        { type: 'thinking-start', index: 0 },
        ...thinking.deltas.map((delta) => ({ type: 'thinking-delta', index: 0, delta })),
        { type: 'thinking-end', index: 0, thinking: whole },
      ]);
      const end = endOf(events);
      expect(end).toMatchObject({
        type: 'message-end',
        message: { usage: thinking.usage, stop_reason: thinking.stopReason },
      });
      if (end?.type !== 'message-end') return;
      expect(end.message.content).toEqual(thinking.content);
      expect(end.message.content[0]).toMatchObject({ type: 'thinking', thinking: whole });
      if (wire.thinking === 'unsigned') expect(end.message.content[0]).toMatchObject({ signature: '' });
      else expect(end.message.content[0]).not.toMatchObject({ signature: '' });
    });
  }

  it('stops with max_tokens when the output limit cut the reply short', async () => {
    replay(recorded.maxTokens.body);
    expect(endOf(await run())).toMatchObject({
      type: 'message-end',
      message: {
        content: recorded.maxTokens.content,
        stop_reason: 'max_tokens',
        raw_stop_reason: recorded.maxTokens.rawStopReason,
      },
    });
  });

  it.each(wire.stopReasons)('normalises the wire stop reason %s to %s and keeps the raw value', async (raw, normalised) => {
    server().enqueue({ text: 'Done.', stopReason: raw });
    expect(endOf(await run())).toMatchObject({
      type: 'message-end',
      message: { stop_reason: normalised, raw_stop_reason: raw },
    });
  });
}
