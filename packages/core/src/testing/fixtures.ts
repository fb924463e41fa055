import type { Message, Usage } from '../messages.js';
import type { DiskMessage } from '../session/records.js';

/** Makes message records with predictable ids and timestamps. */
export class RecordFactory {
  #n = 0;
  readonly #prefix: string;

  constructor(prefix = 'entry') {
    this.#prefix = prefix;
  }

  nextId(): string {
    this.#n++;
    return `${this.#prefix}-${String(this.#n).padStart(6, '0')}`;
  }

  message(message: Exclude<Message, { role: 'compaction' }>): DiskMessage {
    const id = this.nextId();
    return { type: 'message', id, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, this.#n)).toISOString(), message };
  }

  user(content: string, provider = 'scripted', model = 'scripted-1'): DiskMessage {
    return this.message({ role: 'user', content, provider, model });
  }

  assistant(text: string, options: { provider?: string; model?: string; usage?: Partial<Usage> } = {}): DiskMessage {
    return this.message({
      role: 'assistant',
      content: [{ type: 'text', text }],
      provider: options.provider ?? 'scripted',
      model: options.model ?? 'scripted-1',
      usage: { ...usage(0, 0), ...options.usage },
      stop_reason: 'end_turn',
    });
  }
}

export function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage {
  return { input_tokens: input, output_tokens: output, cache_read_tokens: cacheRead, cache_write_tokens: cacheWrite };
}

/** One message of every kind a store must round-trip, every block kind and field included. */
export function everyKindOfMessage(): Exclude<Message, { role: 'compaction' }>[] {
  return [
    { role: 'system', content: 'You are terse.', mode: 'replace' },
    { role: 'system', content: 'Prefer tables.', mode: 'append' },
    { role: 'user', content: 'Read "a.txt" — ünïcödé ✓ and \n newlines', provider: 'anthropic', model: 'claude-x' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The user wants a file.', signature: 'sig-abc==' },
        { type: 'redacted_thinking', data: 'ENCRYPTED==' },
        { type: 'text', text: 'Reading it.' },
        {
          type: 'tool_call',
          id: 'toolu_01',
          name: 'read',
          input: { path: 'a.txt', limit: 10, flags: [true, null, 1.5], nested: { k: 'v' } },
        },
        { type: 'tool_call', id: 'toolu_02', name: 'bash', input: {} },
        { type: 'tool_call', id: 'toolu_03', name: 'mcp__everything__get-tiny-image', input: {} },
      ],
      provider: 'anthropic',
      model: 'claude-x',
      usage: usage(1200, 85, 1000, 150),
      stop_reason: 'tool_use',
      raw_stop_reason: 'tool_use',
    },
    { role: 'tool_result', tool_call_id: 'toolu_01', tool_name: 'read', content: 'hello\n', is_error: false },
    { role: 'tool_result', tool_call_id: 'toolu_02', tool_name: 'bash', content: 'exit 1', is_error: true },
    {
      role: 'tool_result',
      tool_call_id: 'toolu_03',
      tool_name: 'mcp__everything__get-tiny-image',
      content: 'A tiny image:',
      is_error: false,
      images: [{ type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' }],
    },
    {
      role: 'assistant',
      content: [{ type: 'text', text: 'Partial answ' }],
      provider: 'openai',
      model: 'gpt-x',
      usage: usage(10, 2),
      stop_reason: 'error',
      error_message: 'stream dropped',
    },
  ];
}
