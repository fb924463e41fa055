import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { batchedLines, plainTelemetry } from './request-telemetry.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('batchedLines', () => {
  it('writes the lines of a burst together, in order, once the first has waited its delay', () => {
    vi.useFakeTimers();
    const writes: string[] = [];
    const line = batchedLines((text) => writes.push(text), 50);
    line('one');
    line('two');
    vi.advanceTimersByTime(49);
    line('three');
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['one\ntwo\nthree\n']);
    line('four');
    vi.advanceTimersByTime(50);
    expect(writes).toEqual(['one\ntwo\nthree\n', 'four\n']);
  });

  it('writes what waits when the process exits, before the delay is up, also after an uncaught error', () => {
    const module = new URL('./request-telemetry.ts', import.meta.url).pathname;
    for (const ending of ['process.exit(0)', 'throw new Error("boom")']) {
      const script = `import { plainTelemetry } from ${JSON.stringify(module)};
        plainTelemetry().request({ request_id: 'r', method: 'POST', route: '/sessions', status: 201, duration_ms: 3 }, undefined);
        setTimeout(() => { ${ending} }, 0);`;
      const { stderr } = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
      expect(stderr, ending).toContain('panto: POST /sessions → 201 in 3 ms\n');
    }
  });
});

describe('plainTelemetry', () => {
  it('says the route, status, time, session, tokens and error code of a request, never its owner', () => {
    const lines: string[] = [];
    plainTelemetry((line) => lines.push(line)).request(
      {
        request_id: 'r',
        method: 'POST',
        route: '/sessions/{id}/messages',
        status: 429,
        duration_ms: 12,
        session_id: 's1',
        owner_hash: 'abcd',
        usage: { input_tokens: 10, output_tokens: 2, cache_read_tokens: 0, cache_write_tokens: 0 },
        error_code: 'budget_exceeded',
      },
      undefined,
    );
    expect(lines).toEqual(['panto: POST /sessions/{id}/messages → 429 in 12 ms, session s1, tokens 10 in / 2 out, budget_exceeded']);
  });
});
