import { validate, version } from 'uuid';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isValidId, newId } from './ids.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('newId', () => {
  it('makes valid UUIDv7 ids that pass isValidId', () => {
    for (let i = 0; i < 1_000; i++) {
      const id = newId();
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
      expect(isValidId(id)).toBe(true);
    }
  });

  // The clocks below run later than the real one: the generator's last millisecond is shared by the whole file.
  it('sorts ids in the order they were made within one millisecond, across refills of its random pool', () => {
    vi.useFakeTimers({ now: new Date('2027-01-01T00:00:00.000Z'), toFake: ['Date'] });
    const ids = Array.from({ length: 2_000 }, () => newId());
    expect([...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // The first 48 bits are the millisecond.
    expect(Number.parseInt(ids[0]!.replaceAll('-', '').slice(0, 12), 16)).toBe(Date.parse('2027-01-01T00:00:00.000Z'));
  });

  it('keeps the order when the clock steps back', () => {
    vi.useFakeTimers({ now: new Date('2027-01-01T00:00:01.000Z'), toFake: ['Date'] });
    const before = newId();
    vi.setSystemTime(new Date('2027-01-01T00:00:00.500Z'));
    const after = newId();
    expect(after > before).toBe(true);
  });

  it('starts each millisecond at a random counter, so ids of two processes do not collide', () => {
    const firsts = new Set<string>();
    for (let ms = 0; ms < 200; ms++) {
      vi.useFakeTimers({ now: Date.parse('2027-01-02T00:00:00.000Z') + ms, toFake: ['Date'] });
      firsts.add(newId().slice(14, 23));
    }
    expect(firsts.size).toBeGreaterThan(190);
  });
});
