/**
 * Server-sent events from a fetch body (the streaming routes are POSTs with a bearer token,
 * which `EventSource` cannot send): splits the stream into events as the spec's parser does —
 * `event:`, `data:` (lines joined with `\n`), `id:`, comments and `retry:` ignored.
 */
export interface SSEEvent {
  event: string;
  data: string;
  id?: string;
}

/** Feeds text in, hands complete events out. Not thread-safe; one per stream. */
export class SSEParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #id: string | undefined;

  /** The events completed by `chunk` (a blank line ends one); a partial event waits for the next chunk. */
  push(chunk: string): SSEEvent[] {
    this.#buffer += chunk;
    const events: SSEEvent[] = [];
    let newline: number;
    for (newline = this.#buffer.search(/\r\n|\r|\n/); newline >= 0; newline = this.#buffer.search(/\r\n|\r|\n/)) {
      const line = this.#buffer.slice(0, newline);
      const width = this.#buffer.startsWith('\r\n', newline) ? 2 : 1;
      // A lone \r at the end of the buffer may be the first half of \r\n: wait for more.
      if (width === 1 && this.#buffer[newline] === '\r' && newline === this.#buffer.length - 1) break;
      this.#buffer = this.#buffer.slice(newline + width);
      if (line === '') {
        if (this.#data.length > 0) {
          events.push({ event: this.#event || 'message', data: this.#data.join('\n'), ...(this.#id === undefined ? {} : { id: this.#id }) });
        }
        this.#event = '';
        this.#data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') this.#event = value;
      else if (field === 'data') this.#data.push(value);
      else if (field === 'id') this.#id = value;
    }
    return events;
  }
}

/**
 * The events of a response body, as they arrive. Ends when the body ends; rejects with the
 * abort reason when `signal` aborts.
 */
export async function* readSSE(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SSEEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SSEParser();
  // The reader is given up on abort; a cancel that fails has nothing left to tell.
  const onAbort = (): void => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}
