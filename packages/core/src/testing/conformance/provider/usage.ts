import { expect, it } from 'vitest';
import { endOf, type ProviderSuite } from './suite.js';

/** Usage: cache reads and writes apart from the uncached input. */
export function describeUsageContract({ harness, server, run, replay }: ProviderSuite): void {
  const { recorded } = harness;
  it('reports cache reads and cache writes apart from the uncached input', async () => {
    replay(recorded.cacheUsage.body);
    const end = endOf(await run());
    expect(end).toMatchObject({
      type: 'message-end',
      message: { content: [{ type: 'text', text: 'Cached and ready.' }] },
    });
    expect(end?.type === 'message-end' && end.message.usage).toEqual(recorded.cacheUsage.usage);
  });

  it('reports cache writes when the server reports them, the four counts disjoint', async () => {
    server().enqueue({ text: 'ok', usage: { input: 10, output: 2, cacheRead: 30, cacheWrite: 50 } });
    const end = endOf(await run());
    expect(end?.type === 'message-end' && end.message.usage).toEqual({
      input_tokens: 10,
      output_tokens: 2,
      cache_read_tokens: 30,
      cache_write_tokens: 50,
    });
  });
}
