import { describe, expect, it } from 'vitest';
import { waitUntil } from './wait-until.js';

describe('waitUntil', () => {
  it('resolves as soon as the condition holds', async () => {
    let checks = 0;
    await waitUntil(() => ++checks === 3, { message: 'the third check', intervalMs: 1 });
    expect(checks).toBe(3);
  });

  it('awaits an async condition', async () => {
    let ready = false;
    setTimeout(() => (ready = true), 5);
    await waitUntil(async () => ready, { message: 'ready' });
    expect(ready).toBe(true);
  });

  it('rejects after the deadline, saying what it waited for', async () => {
    const started = performance.now();
    await expect(waitUntil(() => false, { message: 'the moon turns blue', timeoutMs: 30 })).rejects.toThrow(
      'timed out after 30 ms waiting until the moon turns blue',
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(29);
  });

  it('rejects at once with the error a condition throws', async () => {
    await expect(
      waitUntil(
        () => {
          throw new Error('broken condition');
        },
        { message: 'never' },
      ),
    ).rejects.toThrow('broken condition');
  });
});
