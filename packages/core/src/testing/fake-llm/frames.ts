// What the two wires share when the fake server writes a reply: frames, the pieces text and
// arguments stream in, and each wire's error bodies.
import type { FakeReply } from './types.js';

/** The wire a request spoke to FakeLLMServer: Anthropic Messages or OpenAI Chat Completions. */
export type Protocol = 'anthropic' | 'openai';

/** A piece of a streamed response; deltas are what `dropAfterDeltas`, `hang` and `errorEvent` count. */
export interface Frame {
  kind: 'head' | 'delta' | 'tail';
  data: string | Uint8Array;
}

/** An error event mid-stream, in the wire's shape. */
export function errorFrame(protocol: Protocol, error: { type?: string; message?: string }): string {
  if (protocol === 'anthropic') {
    const body = {
      type: 'error',
      error: { type: error.type ?? 'overloaded_error', message: error.message ?? 'Overloaded' },
    };
    return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
  }
  const body = {
    error: {
      message: error.message ?? 'The server had an error while processing your request.',
      type: error.type ?? 'server_error',
      param: null,
      code: null,
    },
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** An HTTP error body in the wire's shape. */
export function errorBody(protocol: Protocol, type: string, message: string): unknown {
  return protocol === 'anthropic' ? { type: 'error', error: { type, message } } : { error: { message, type, param: null, code: null } };
}

/** The error type the real API sends with `status`. */
export function defaultErrorType(protocol: Protocol, status: number): string {
  const anthropic: Record<number, string> = {
    400: 'invalid_request_error',
    401: 'authentication_error',
    403: 'permission_error',
    404: 'not_found_error',
    413: 'request_too_large',
    429: 'rate_limit_error',
    529: 'overloaded_error',
  };
  if (protocol === 'anthropic') return anthropic[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  if (status === 429) return 'rate_limit_exceeded';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** Word-sized pieces: "Hello there" → ["Hello", " there"]. */
export function textPieces(text: string): string[] {
  return text === '' ? [] : text.split(/(?=\s)/);
}

/** A tool call's arguments as they stream: `arguments` when given (e.g. broken JSON), else the input as JSON. */
export function argumentsOf(call: NonNullable<FakeReply['toolCalls']>[number]): string {
  return call.arguments ?? JSON.stringify(call.input);
}

/** A JSON text in three roughly equal pieces, as streamed arguments arrive. */
export function jsonPieces(json: string): string[] {
  const size = Math.max(1, Math.ceil(json.length / 3));
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += size) pieces.push(json.slice(i, i + size));
  return pieces;
}
