import type { Message, ToolResultMessage } from '../messages.js';
import type { Provider, ProviderCallOptions, ProviderEvent, ProviderRequest } from '../provider.js';
import type { ToolDefinition } from '../tool.js';
import { MessageAssembler, parseToolArguments } from './message-assembler.js';
import { abortedError } from './wire-common.js';

/** Every offline reply starts with this, so nobody mistakes it for a model. */
export const OFFLINE_PREFIX = '[offline provider — no API key set]';

export interface OfflineProviderOptions {
  /** The model name recorded on messages. Default `offline-1`. */
  model?: string | undefined;
}

/**
 * A provider that needs no network and no key, for demos, `npm start` without a key, and
 * tests. It is deterministic — the same conversation always gets the same reply — and says
 * plainly that it is offline. Its rules, applied to the conversation it is given:
 *
 * 1. When the conversation ends with tool results (the tool loop), it answers with text that
 *    summarises each result of that turn: `The tool <name> returned: <content>` (or
 *    `failed: …` for an error result), long contents cut at 400 characters. Stop reason
 *    `end_turn`.
 * 2. When the latest user message (or compaction summary) names an offered tool — a tool
 *    name as a whole word, case-insensitive; the earliest mention wins — it calls that tool
 *    once: the input is the first `{…}` JSON object in the message (`{}` when there is none
 *    or it does not parse), the id `offline_call_<n>` where n counts the conversation's
 *    assistant messages. It writes one line of text first. Stop reason `tool_use`.
 *    So "use clock" or "please use read_file {"path": "a.txt"}" exercises the tool loop.
 * 3. Otherwise it echoes the message back (cut at 400 characters), says how to get a real
 *    model, and lists the tools it could call. Stop reason `end_turn`.
 *
 * Text streams in word-sized deltas. Usage is estimated at 4 characters per token: input
 * from the whole request (messages and tool definitions), output from the reply. An abort
 * ends the stream with an `error` event (stop reason `aborted`), keeping the text so far.
 *
 * @example
 * const agent = new Agent({ provider: new OfflineProvider(), tools }, { store });
 * await agent.submitUserMessage('use clock');
 * await agent.runStep(); // calls `clock`, then summarises its result
 */
export class OfflineProvider implements Provider {
  readonly name = 'offline';
  readonly model: string;

  constructor(options: OfflineProviderOptions = {}) {
    this.model = options.model ?? 'offline-1';
  }

  async *stream(request: ProviderRequest, { signal }: ProviderCallOptions): AsyncGenerator<ProviderEvent> {
    const assembler = new MessageAssembler();
    const plan = planReply(request.messages, request.tools);
    const text = plan.text;
    const pieces = text.split(/(?=\s)/);
    const aborted = (): ProviderEvent => {
      const error = abortedError(signal);
      const partial = assembler.partial(this.name, this.model, 'aborted', error);
      return partial ? { type: 'error', error, partial } : { type: 'error', error };
    };
    if (signal.aborted) {
      yield aborted();
      return;
    }
    const textIndex = assembler.openText();
    for (const piece of pieces) {
      assembler.appendText(textIndex, piece);
      yield* assembler.drain();
      // Let an abort (or anything else waiting) in between deltas, as a network stream would.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (signal.aborted) {
        yield aborted();
        return;
      }
    }
    assembler.close(textIndex);
    if (plan.call) {
      const index = assembler.openToolCall(plan.call.id, plan.call.name);
      assembler.appendToolCall(index, plan.call.json);
      assembler.close(index);
    }
    yield* assembler.drain();
    assembler.usage = {
      input_tokens: estimateTokens(JSON.stringify(request.messages) + JSON.stringify(request.tools)),
      output_tokens: estimateTokens(text + (plan.call?.json ?? '')),
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    };
    const stopReason = plan.call ? 'tool_use' : 'end_turn';
    yield { type: 'message-end', message: assembler.message(this.name, this.model, stopReason, stopReason) };
  }
}

interface Plan {
  text: string;
  call?: { id: string; name: string; json: string };
}

const EXCERPT = 400;

function planReply(messages: readonly Message[], tools: readonly ToolDefinition[]): Plan {
  const results = trailingToolResults(messages);
  if (results.length > 0) {
    const lines = results.map((result) =>
      result.is_error
        ? `The tool ${result.tool_name} failed: ${excerpt(result.content)}`
        : `The tool ${result.tool_name} returned: ${excerpt(result.content)}`,
    );
    return { text: `${OFFLINE_PREFIX} ${lines.join('\n')}` };
  }
  const prompt = latestPrompt(messages);
  if (prompt === undefined) return { text: `${OFFLINE_PREFIX} There is no message to answer yet.` };
  const tool = namedTool(prompt, tools);
  if (tool) {
    const input = parseToolArguments(firstJSONObject(prompt) ?? '');
    const assistants = messages.filter((message) => message.role === 'assistant').length;
    return {
      text: `${OFFLINE_PREFIX} Calling the tool ${tool.name}.`,
      call: { id: `offline_call_${assistants + 1}`, name: tool.name, json: JSON.stringify(input) },
    };
  }
  const offer =
    tools.length > 0
      ? ` I can call a tool if you name it, with a JSON input if it needs one, e.g. "use ${tools[0]?.name} {}". Tools: ${tools.map((t) => t.name).join(', ')}.`
      : '';
  return {
    text: `${OFFLINE_PREFIX} No model is connected, so this is an echo of your message: "${excerpt(prompt)}". Set ANTHROPIC_API_KEY or OPENAI_API_KEY to talk to a real model.${offer}`,
  };
}

function trailingToolResults(messages: readonly Message[]): ToolResultMessage[] {
  const results: ToolResultMessage[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== 'tool_result') break;
    results.unshift(message);
  }
  return results;
}

function latestPrompt(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === 'user') return message.content;
    if (message?.role === 'compaction') return message.summary;
    if (message?.role === 'assistant') return undefined;
  }
  return undefined;
}

function namedTool(text: string, tools: readonly ToolDefinition[]): ToolDefinition | undefined {
  let best: { tool: ToolDefinition; at: number } | undefined;
  for (const tool of tools) {
    const escaped = tool.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`, 'i').exec(text);
    if (match && (best === undefined || match.index < best.at)) best = { tool, at: match.index };
  }
  return best?.tool;
}

/** The first balanced `{…}` in the text that parses as JSON (braces inside strings are not special-cased). */
function firstJSONObject(text: string): string | undefined {
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}' && --depth === 0) {
        const candidate = text.slice(start, i + 1);
        try {
          JSON.parse(candidate);
          return candidate;
        } catch {
          break;
        }
      }
    }
  }
  return undefined;
}

function excerpt(text: string): string {
  const flat = text.trim();
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}…` : flat;
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
