import { toError } from '../errors.js';
import { tooDeepReason } from '../json-limits.js';
import { toolResultMessage, type ImageBlock, type ToolCallBlock, type ToolResultMessage } from '../messages.js';
import { redactSecrets } from '../redact.js';
import type { BeforeToolCall, ToolCallDecision, ToolContext, ToolRegistry } from '../tool.js';
import type { Receiver } from './events.js';

const ABORTED_TOOL_RESULT = 'Tool call aborted: the step was cancelled before this tool finished.';
const DEEP_INPUT_RESULT = `Tool call refused: ${tooDeepReason('its input')}. Send it again with less nesting.`;

/**
 * Runs an assistant message's tool calls one after another and returns their results, in
 * order. A call in `refused` (its input was too deep to keep) is not run; after an abort,
 * every call not yet run gets an aborted result. Never throws: a tool's failure is its result.
 */
export async function runTools(
  tools: ToolRegistry,
  beforeToolCall: BeforeToolCall | undefined,
  calls: readonly ToolCallBlock[],
  refused: ReadonlySet<string>,
  signal: AbortSignal,
  emit: Receiver,
): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = [];
  for (const call of calls) {
    if (signal.aborted) {
      results.push(toolResultMessage(call, ABORTED_TOOL_RESULT, true));
      continue;
    }
    emit({ type: 'tool-execution-start', toolCall: call });
    const result = refused.has(call.id) ? toolResultMessage(call, DEEP_INPUT_RESULT, true) : await runTool(tools, beforeToolCall, call, signal);
    emit({ type: 'tool-execution-end', toolCall: call, result });
    results.push(result);
  }
  return results;
}

async function runTool(tools: ToolRegistry, beforeToolCall: BeforeToolCall | undefined, call: ToolCallBlock, signal: AbortSignal): Promise<ToolResultMessage> {
  const tool = tools.get(call.name);
  if (!tool) return toolResultMessage(call, `Unknown tool: ${call.name}`, true);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<ToolResultMessage>((resolve) => {
    onAbort = () => resolve(toolResultMessage(call, ABORTED_TOOL_RESULT, true));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  const context = { signal, toolCallId: call.id };
  const execute = (): Promise<ToolResultMessage> =>
    // A tool from an untyped extension may throw before returning a promise, or return no output at all.
    new Promise<unknown>((resolve) => resolve(tool.execute(call.input, context))).then(
      (output) => resultOf(call, output),
      (error: unknown) =>
        signal.aborted
          ? toolResultMessage(call, ABORTED_TOOL_RESULT, true)
          : // The error's words (a failed request's) may quote the credential it was sent: stored, sent to the model, traced.
            toolResultMessage(call, redactSecrets(`Tool ${call.name} failed: ${toError(error).message}`), true),
    );
  try {
    const run = decide(beforeToolCall, call, context).then((decision) =>
      decision.type === 'refuse' ? toolResultMessage(call, `Tool call refused: ${decision.reason}`, true) : execute(),
    );
    return await Promise.race([run, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** The hook's decision; one that throws refuses the call (a guard that cannot check must not let it through). */
async function decide(beforeToolCall: BeforeToolCall | undefined, call: ToolCallBlock, context: ToolContext): Promise<ToolCallDecision> {
  if (beforeToolCall === undefined) return { type: 'allow' };
  try {
    return (await beforeToolCall(call, context)) ?? { type: 'allow' };
  } catch (error) {
    return { type: 'refuse', reason: `the check before this call failed: ${toError(error).message}` };
  }
}

/** A tool's output as a result; what is not a `ToolOutput` becomes an error result, never a record the store cannot read back. */
function resultOf(call: ToolCallBlock, output: unknown): ToolResultMessage {
  if (typeof output === 'string') return toolResultMessage(call, output, false);
  if (typeof output === 'object' && output !== null && 'content' in output && typeof output.content === 'string') {
    const isError = 'is_error' in output && output.is_error === true;
    const result = toolResultMessage(call, output.content, isError);
    const images = 'images' in output && Array.isArray(output.images) ? output.images.filter(isImageBlock) : [];
    return images.length > 0 ? { ...result, images: images.map(({ media_type, data }) => ({ type: 'image', media_type, data })) } : result;
  }
  return toolResultMessage(call, `Tool ${call.name} failed: it returned ${describeValue(output)} instead of a string or { content }`, true);
}

function isImageBlock(value: unknown): value is ImageBlock {
  if (typeof value !== 'object' || value === null) return false;
  const block = value as { [key: string]: unknown };
  return block.type === 'image' && typeof block.media_type === 'string' && typeof block.data === 'string';
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object without a string content' : typeof value;
}
