import { describe, expect, it } from 'vitest';
import { anySignal } from './any-signal.js';

describe('anySignal', () => {
  it('aborts with the reason of the first source that aborts, and only once', () => {
    const [a, b] = [new AbortController(), new AbortController()];
    const { signal } = anySignal([a.signal, b.signal]);
    const reasons: unknown[] = [];
    signal.addEventListener('abort', () => reasons.push(signal.reason));
    b.abort('lease lost');
    a.abort('deadline');
    expect(signal.aborted).toBe(true);
    expect(reasons).toEqual(['lease lost']);
  });

  it('is aborted from the start when a source already is', () => {
    const a = new AbortController();
    a.abort('gone');
    expect(anySignal([new AbortController().signal, a.signal]).signal.reason).toBe('gone');
  });

  it('once disposed, no longer follows its sources', () => {
    const a = new AbortController();
    const { signal, dispose } = anySignal([a.signal]);
    dispose();
    a.abort('late');
    expect(signal.aborted).toBe(false);
  });
});
