// A scripted reply as Bedrock's ConverseStream answers it: `application/vnd.amazon.eventstream`
// messages (prelude, headers, JSON payload, CRC32s), encoded by the AWS SDK's own codec.
import { EventStreamCodec, type MessageHeaders } from '@smithy/core/event-streams';
import { argumentsOf, type Frame, jsonPieces, textPieces } from '../fake-llm/frames.js';
import type { FakeReply } from '../fake-llm/types.js';

/** One event-stream message: an event (`messageStart`, `contentBlockDelta`, …) or an exception event (`throttlingException`, …). */
export type BedrockStreamEvent = { event: string; payload: unknown } | { exception: string; payload: { message: string } };

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const codec = new EventStreamCodec(
  (bytes) => decoder.decode(bytes),
  (text) => encoder.encode(text),
);

/** One event-stream message, as bytes on the wire. */
export function encodeBedrockEvent(message: BedrockStreamEvent): Uint8Array {
  const headers: MessageHeaders = { ':content-type': { type: 'string', value: 'application/json' } };
  if ('event' in message) {
    headers[':message-type'] = { type: 'string', value: 'event' };
    headers[':event-type'] = { type: 'string', value: message.event };
  } else {
    headers[':message-type'] = { type: 'string', value: 'exception' };
    headers[':exception-type'] = { type: 'string', value: message.exception };
  }
  return codec.encode({ headers, body: encoder.encode(JSON.stringify(message.payload)) });
}

/**
 * A whole ConverseStream body from its events, as a recorded response is replayed.
 *
 * @example
 * server.enqueueRaw({ status: 200, headers: BEDROCK_STREAM_HEADERS, body: encodeEventStream([{ event: 'messageStart', payload: { role: 'assistant' } }, …]) });
 */
export function encodeEventStream(messages: readonly BedrockStreamEvent[]): Uint8Array {
  return Buffer.concat(messages.map(encodeBedrockEvent));
}

/** The response headers of a ConverseStream answer. */
export const BEDROCK_STREAM_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/vnd.amazon.eventstream' };

/**
 * `reply` as Bedrock streams it: `messageStart`; text and reasoning as `contentBlockDelta`s
 * (Bedrock sends no start event for them), each tool call as `contentBlockStart` with its id
 * and name, then its input in pieces; `contentBlockStop` after each block; `messageStop` with
 * the stop reason; `metadata` with the usage (cache counts only when the reply has them, as
 * Bedrock reports them only with caching).
 */
export function bedrockFrames(reply: FakeReply, id: number): Frame[] {
  const frame = (kind: Frame['kind'], event: string, payload: unknown): Frame => ({ kind, data: encodeBedrockEvent({ event, payload }) });
  const frames: Frame[] = [frame('head', 'messageStart', { role: 'assistant' })];
  let index = 0;
  const delta = (value: unknown): void => void frames.push(frame('delta', 'contentBlockDelta', { contentBlockIndex: index, delta: value }));
  const stop = (): void => {
    frames.push(frame('head', 'contentBlockStop', { contentBlockIndex: index }));
    index++;
  };
  if (reply.thinking) {
    for (const piece of textPieces(reply.thinking.thinking)) delta({ reasoningContent: { text: piece } });
    delta({ reasoningContent: { signature: reply.thinking.signature } });
    stop();
  }
  if (reply.text !== undefined && reply.text !== '') {
    for (const piece of textPieces(reply.text)) delta({ text: piece });
    stop();
  }
  for (const [callIndex, call] of (reply.toolCalls ?? []).entries()) {
    const toolUseId = call.id ?? `tooluse_fake_${id}_${callIndex}`;
    frames.push(frame('head', 'contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId, name: call.name } } }));
    for (const piece of jsonPieces(argumentsOf(call))) delta({ toolUse: { input: piece } });
    stop();
  }
  const stopReason = reply.stopReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
  frames.push(frame('tail', 'messageStop', { stopReason }));
  frames.push(frame('tail', 'metadata', { usage: wireUsage(reply.usage ?? {}), metrics: { latencyMs: 1 } }));
  return frames;
}

/** Usage as Bedrock reports it: `inputTokens` without the cached ones, `totalTokens` everything. */
function wireUsage(usage: NonNullable<FakeReply['usage']>): Record<string, number> {
  const input = usage.input ?? 0;
  const output = usage.output ?? 0;
  const cache = {
    ...(usage.cacheRead !== undefined ? { cacheReadInputTokens: usage.cacheRead } : {}),
    ...(usage.cacheWrite !== undefined ? { cacheWriteInputTokens: usage.cacheWrite } : {}),
  };
  return { inputTokens: input, outputTokens: output, totalTokens: input + output + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0), ...cache };
}

/**
 * An exception event mid-stream. `type` is the exception's name (`ModelStreamErrorException`,
 * the default) or its event name (`modelStreamErrorException`).
 */
export function bedrockErrorFrame(error: { type?: string; message?: string }): Uint8Array {
  const name = error.type ?? 'ModelStreamErrorException';
  return encodeBedrockEvent({
    exception: name.charAt(0).toLowerCase() + name.slice(1),
    payload: { message: error.message ?? 'The model stream failed.' },
  });
}

/** The error type (`x-amzn-errortype`) Bedrock Runtime answers `status` with. */
export function bedrockErrorType(status: number): string {
  const types: Record<number, string> = {
    400: 'ValidationException',
    403: 'AccessDeniedException',
    404: 'ResourceNotFoundException',
    408: 'ModelTimeoutException',
    424: 'ModelErrorException',
    429: 'ThrottlingException',
    500: 'InternalServerException',
    503: 'ServiceUnavailableException',
  };
  return types[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException');
}
