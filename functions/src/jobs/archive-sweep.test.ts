import { afterEach, describe, expect, it, vi } from 'vitest';
import { archiveSweepHandler, startArchiveSweeper, type ArchiveSweepSummary } from './archive-sweep.js';

const SUMMARY: ArchiveSweepSummary = { archived: 1, finished: 0, skipped: 2, failed: 0, complete: true, indexed: 0 };

describe('startArchiveSweeper', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sweeps at once and then every period, never two runs at a time, and reports each run or its failure', async () => {
    vi.useFakeTimers();
    const reports: Array<ArchiveSweepSummary | string> = [];
    let finish: (() => void) | undefined;
    let runs = 0;
    const sweep = (): Promise<ArchiveSweepSummary> => {
      runs++;
      if (runs === 2) return Promise.reject(new Error('S3 down'));
      return new Promise((resolve) => (finish = () => resolve(SUMMARY)));
    };
    const sweeper = startArchiveSweeper(sweep, 1000, (summary, error) => reports.push(summary ?? String(error)));
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(3500); // the first run is still going: the timer does not start another
    expect(runs).toBe(1);
    finish!();
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(2); // failed
    await vi.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(3);
    finish!();
    const stopped = sweeper.stop();
    await vi.advanceTimersByTimeAsync(5000);
    await stopped;
    expect(runs).toBe(3);
    expect(reports).toEqual([SUMMARY, 'Error: S3 down', SUMMARY]);
  });
});

describe('archiveSweepHandler', () => {
  it('archives nothing when PANTO_ARCHIVE_AFTER_DAYS is not set', async () => {
    await expect(archiveSweepHandler(undefined)({}, { getRemainingTimeInMillis: () => 900_000 })).resolves.toEqual({
      archived: 0,
      finished: 0,
      skipped: 0,
      failed: 0,
      complete: true,
      indexed: 0,
    });
  });
});
