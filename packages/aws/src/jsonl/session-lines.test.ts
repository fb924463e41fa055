import { afterEach, describe, expect, it, vi } from 'vitest';
import { exposedGarbageCollector } from './session-lines.js';

describe('exposedGarbageCollector', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('is the process’s gc when Node exposes it (--expose-gc), else undefined', () => {
    vi.stubGlobal('gc', undefined);
    expect(exposedGarbageCollector()).toBeUndefined();
    const gc = vi.fn();
    vi.stubGlobal('gc', gc);
    exposedGarbageCollector()!();
    expect(gc).toHaveBeenCalledTimes(1);
  });
});
