import { argumentsOf, type Frame, jsonPieces, textPieces } from './frames.js';
import type { FakeReply } from './types.js';

/** A reply as Anthropic Messages streams it: `message_start`, content blocks with their deltas, `message_delta`, `message_stop`. */
export function anthropicFrames(reply: FakeReply, model: string, id: number): Frame[] {
  const event = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const usage = reply.usage ?? {};
  const frames: Frame[] = [
    {
      kind: 'head',
      data: event('message_start', {
        type: 'message_start',
        message: {
          id: `msg_fake_${id}`,
          type: 'message',
          role: 'assistant',
          content: [],
          model,
          stop_reason: null,
          stop_sequence: null,
          usage: wireUsage(usage, 1),
        },
      }),
    },
  ];
  let index = 0;
  let pinged = false;
  const startBlock = (block: unknown): void => {
    frames.push({
      kind: 'head',
      data: event('content_block_start', { type: 'content_block_start', index, content_block: block }),
    });
    if (!pinged) {
      frames.push({ kind: 'head', data: event('ping', { type: 'ping' }) });
      pinged = true;
    }
  };
  const delta = (value: unknown): void => {
    frames.push({
      kind: 'delta',
      data: event('content_block_delta', { type: 'content_block_delta', index, delta: value }),
    });
  };
  const stopBlock = (): void => {
    frames.push({ kind: 'head', data: event('content_block_stop', { type: 'content_block_stop', index }) });
    index++;
  };
  if (reply.thinking) {
    startBlock({ type: 'thinking', thinking: '', signature: '' });
    for (const piece of textPieces(reply.thinking.thinking)) delta({ type: 'thinking_delta', thinking: piece });
    delta({ type: 'signature_delta', signature: reply.thinking.signature });
    stopBlock();
  }
  if (reply.text !== undefined && reply.text !== '') {
    startBlock({ type: 'text', text: '' });
    for (const piece of textPieces(reply.text)) delta({ type: 'text_delta', text: piece });
    stopBlock();
  }
  for (const [callIndex, call] of (reply.toolCalls ?? []).entries()) {
    startBlock({ type: 'tool_use', id: call.id ?? `toolu_fake_${id}_${callIndex}`, name: call.name, input: {} });
    delta({ type: 'input_json_delta', partial_json: '' });
    for (const piece of jsonPieces(argumentsOf(call))) delta({ type: 'input_json_delta', partial_json: piece });
    stopBlock();
  }
  const stopReason = reply.stopReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
  frames.push({
    kind: 'tail',
    data: event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: wireUsage(usage, usage.output ?? 0),
    }),
  });
  frames.push({ kind: 'tail', data: event('message_stop', { type: 'message_stop' }) });
  return frames;
}

/** Usage as the wire counts it: `output` is what the message has written so far (1 at its start). */
function wireUsage(usage: NonNullable<FakeReply['usage']>, output: number) {
  return {
    input_tokens: usage.input ?? 0,
    cache_creation_input_tokens: usage.cacheWrite ?? 0,
    cache_read_input_tokens: usage.cacheRead ?? 0,
    output_tokens: output,
  };
}
