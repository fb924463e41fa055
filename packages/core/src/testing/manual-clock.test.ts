import { describe, expect, it } from 'vitest';
import { ManualClock } from './manual-clock.js';

describe('ManualClock', () => {
  it('stands still until advanced, then fires what fell due in time order, each at its own time', () => {
    const clock = new ManualClock(1_000);
    const fired: string[] = [];
    clock.schedule(() => fired.push(`b@${clock.now()}`), 20);
    clock.schedule(() => fired.push(`a@${clock.now()}`), 10);
    clock.schedule(() => fired.push(`c@${clock.now()}`), 30);
    expect(clock.now()).toBe(1_000);
    clock.advance(25);
    expect(fired).toEqual(['a@1010', 'b@1020']);
    expect(clock.now()).toBe(1_025);
    expect(clock.pending).toBe(1);
  });

  it('fires timers that callbacks schedule within the span, and none that were cancelled', () => {
    const clock = new ManualClock(0);
    const fired: number[] = [];
    const tick = (): void => {
      fired.push(clock.now());
      clock.schedule(tick, 10);
    };
    clock.schedule(tick, 10);
    const cancel = clock.schedule(() => fired.push(-1), 5);
    cancel();
    clock.advance(35);
    expect(fired).toEqual([10, 20, 30]);
    expect(clock.pending).toBe(1);
  });
});
