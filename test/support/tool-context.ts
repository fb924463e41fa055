import type { ToolContext } from '@panto/core';

/** A tool context with a signal that is never aborted, or the given one. */
export function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, toolCallId: 'call_test' };
}
