import type { Tool } from '@panto/core';
import { ToolRegistry } from '@panto/core/agent-kit';

/**
 * `current_time`: the current date and time, in UTC or in an IANA time zone. The service's
 * only built-in tool: a Lambda function has no workspace worth giving a model, so the
 * service offers nothing that reads or writes files or runs commands.
 */
export function currentTimeTool(clock: () => Date = () => new Date()): Tool {
  return {
    name: 'current_time',
    description: 'The current date and time (ISO 8601 in UTC, plus the local time in `time_zone` when given).',
    input_schema: {
      type: 'object',
      properties: { time_zone: { type: 'string', description: 'An IANA time zone such as Europe/Paris.' } },
    },
    execute: async (input) => {
      const now = clock();
      const zone = input.time_zone;
      if (zone === undefined || zone === null) return now.toISOString();
      if (typeof zone !== 'string') return { content: 'time_zone must be a string', is_error: true };
      try {
        const local = new Intl.DateTimeFormat('en-CA', {
          timeZone: zone,
          dateStyle: 'short',
          timeStyle: 'long',
          hourCycle: 'h23',
        }).format(now);
        return `${now.toISOString()} (${zone}: ${local})`;
      } catch {
        return { content: `unknown time zone: ${zone}`, is_error: true };
      }
    },
  };
}

/** The service's built-in tools: `current_time`. */
export function serviceTools(): ToolRegistry {
  return new ToolRegistry([currentTimeTool()]);
}
