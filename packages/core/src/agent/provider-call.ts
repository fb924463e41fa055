import { AbortedError, ProviderError, toError } from '../errors.js';
import { exceedsJSONDepth } from '../json-limits.js';
import type { AssistantMessage, Message } from '../messages.js';
import { redactSecrets } from '../redact.js';
import type { Provider, ProviderEvent } from '../providers/provider.js';
import type { ToolRegistry } from '../tool.js';
import type { Receiver } from './events.js';

/** How one provider call ended: its message (with the calls refused for too deep an input), or its error. */
export type ProviderOutcome = Extract<ProviderEvent, { type: 'error' }> | { type: 'message-end'; message: AssistantMessage; refused: ReadonlySet<string> };

/**
 * Streams one provider call to `emit` and returns how it ended; never throws. What the
 * provider says enters panto here: a tool call whose input nests deeper than
 * `MAX_JSON_DEPTH` is emitted and returned with `{}` as its input, and listed in `refused`
 * (its result is an error the model sees), so nothing too deep to serialise reaches a
 * receiver or the store.
 */
export async function callProvider(
  provider: Provider,
  messages: readonly Message[],
  tools: ToolRegistry,
  signal: AbortSignal,
  emit: Receiver,
  purpose?: 'compaction',
): Promise<ProviderOutcome> {
  emit({ type: 'message-start', provider: provider.name, model: provider.model });
  try {
    for await (const event of provider.stream({ messages, tools: tools.definitions(), ...(purpose === undefined ? {} : { purpose }) }, { signal })) {
      if (event.type === 'error') return event;
      if (event.type === 'message-end') {
        const { message, refused } = withoutDeepInputs(event.message);
        emit({ type: 'message-end', message });
        return { type: 'message-end', message, refused };
      }
      if (event.type === 'tool-call-end' && exceedsJSONDepth(event.toolCall.input)) {
        emit({ ...event, toolCall: { ...event.toolCall, input: {} } });
        continue;
      }
      emit(event);
    }
    return { type: 'error', error: new ProviderError(provider.name, 'the provider stream ended without a message') };
  } catch (error) {
    return { type: 'error', error: signal.aborted ? abortError(signal) : toError(error) };
  }
}

/** The message with every tool-call input deeper than `MAX_JSON_DEPTH` as `{}`, and the ids of those calls. */
function withoutDeepInputs(message: AssistantMessage): { message: AssistantMessage; refused: ReadonlySet<string> } {
  const refused = new Set<string>();
  for (const block of message.content) if (block.type === 'tool_call' && exceedsJSONDepth(block.input)) refused.add(block.id);
  if (refused.size === 0) return { message, refused };
  const content = message.content.map((block) => (block.type === 'tool_call' && refused.has(block.id) ? { ...block, input: {} } : block));
  return { message: { ...message, content }, refused };
}

/** The part of a cut-short message worth keeping: its complete text, marked as cut short. */
export function keepText(partial: AssistantMessage, aborted: boolean, error: Error): AssistantMessage | undefined {
  const content = partial.content.filter((block) => block.type === 'text' && block.text !== '');
  if (content.length === 0) return undefined;
  return {
    ...partial,
    content,
    stop_reason: aborted ? 'aborted' : 'error',
    // Stored, then relayed and traced: no credential the provider quoted.
    error_message: redactSecrets(partial.error_message ?? error.message),
  };
}

/** What an aborted step or call reports: an `AbortedError` carrying the signal's reason. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name !== 'AbortError') return new AbortedError(reason.message, { cause: reason });
  return new AbortedError('the step was aborted', { cause: reason });
}
