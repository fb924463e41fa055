import { describe, expect, it } from 'vitest';
import { currentTimeTool, serviceTools } from './service-tools.js';

const context = { signal: new AbortController().signal, toolCallId: 'call-1' };
const noon = (): Date => new Date('2026-03-01T12:00:00.000Z');

describe('current_time', () => {
  it('returns the time in UTC, and in a given IANA time zone', async () => {
    const tool = currentTimeTool(noon);
    await expect(tool.execute({}, context)).resolves.toBe('2026-03-01T12:00:00.000Z');
    await expect(tool.execute({ time_zone: 'Asia/Tokyo' }, context)).resolves.toMatch(/^2026-03-01T12:00:00\.000Z \(Asia\/Tokyo: 2026-03-01,? 21:00:00 /);
  });

  it('reports an unknown time zone as an error result the model sees', async () => {
    await expect(currentTimeTool(noon).execute({ time_zone: 'Mars/Olympus' }, context)).resolves.toEqual({
      content: 'unknown time zone: Mars/Olympus',
      is_error: true,
    });
  });

  it('is the only tool the service offers', () => {
    expect(
      serviceTools()
        .definitions()
        .map((tool) => tool.name),
    ).toEqual(['current_time']);
  });
});
