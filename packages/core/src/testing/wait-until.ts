export interface WaitUntilOptions {
  /** What is awaited, completing "timed out waiting until …": `'the server received the request'`. */
  message: string;
  /** Give up after this many milliseconds. Default 5000. */
  timeoutMs?: number;
  /** Milliseconds between checks. Default 10. */
  intervalMs?: number;
}

/**
 * Resolves once `condition` holds, checking every `intervalMs`; rejects when it still does
 * not hold after `timeoutMs`, with a message saying what was awaited. For a test that must
 * wait on something it cannot get an event for; prefer an event when the code emits one.
 * `condition` may throw, which rejects at once.
 *
 * @example
 * await waitUntil(() => server.requests.length === 1, { message: 'the server received the request' });
 */
export async function waitUntil(condition: () => boolean | Promise<boolean>, options: WaitUntilOptions): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const intervalMs = options.intervalMs ?? 10;
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${options.message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
