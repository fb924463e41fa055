import type { JsonValue, Message, ToolResultMessage } from '../messages.js';
import type { Provider, ProviderCallOptions, ProviderEvent, ProviderRequest } from './provider.js';
import type { ToolDefinition } from '../tool.js';
import { MessageAssembler, parseToolArguments } from './message-assembler.js';
import { estimateRequestTokens, estimateTokens } from './token-estimate.js';
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
 * 0. Asked for a compaction summary (`request.purpose === 'compaction'`), it writes one from
 *    the conversation itself: the earlier summary, the user's prompts, the tools called and
 *    how they ended, and the last answer — each cut short. Stop reason `end_turn`.
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
 *    model, and lists the tools it could call, with an example call that is valid: a tool
 *    that needs no input, or one whose required inputs all have an example value in their
 *    schema (`examples[0]` or `default`). Stop reason `end_turn`.
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
    const assembler = new MessageAssembler(request);
    const plan = request.purpose === 'compaction' ? { text: summarise(request.messages.slice(0, -1)) } : planReply(request.messages, request.tools);
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
      input_tokens: estimateRequestTokens(request),
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
      result.is_error ? `The tool ${result.tool_name} failed: ${excerpt(result.content)}` : `The tool ${result.tool_name} returned: ${excerpt(result.content)}`,
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
  const example = exampleCall(tools);
  const offer =
    tools.length > 0
      ? ` I can call a tool if you name it, with a JSON input if it needs one${example === undefined ? '' : `, e.g. "use ${example}"`}. Tools: ${tools.map((t) => t.name).join(', ')}.`
      : '';
  return {
    text: `${OFFLINE_PREFIX} No model is connected, so this is an echo of your message: "${excerpt(prompt)}". Set ANTHROPIC_API_KEY or OPENAI_API_KEY to talk to a real model.${offer}`,
  };
}

/**
 * `name {json}` for a call that passes the tool's schema: the first tool that needs no
 * input, else the first whose required inputs all have an example value in their schema.
 */
export function exampleCall(tools: readonly ToolDefinition[]): string | undefined {
  const required = (tool: ToolDefinition) => tool.input_schema.required ?? [];
  const free = tools.find((tool) => required(tool).length === 0);
  if (free) return `${free.name} {}`;
  for (const tool of tools) {
    const input: Record<string, JsonValue> = {};
    for (const name of required(tool)) {
      const value = exampleValue(tool.input_schema.properties?.[name]);
      if (value === undefined) break;
      input[name] = value;
    }
    if (Object.keys(input).length === required(tool).length) return `${tool.name} ${JSON.stringify(input)}`;
  }
  return undefined;
}

function exampleValue(schema: JsonValue | undefined): JsonValue | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  const examples = schema.examples;
  if (Array.isArray(examples) && examples.length > 0) return examples[0];
  return schema.default;
}

const SUMMARY_PROMPTS = 10;

/** A compaction summary made without a model: what was asked, what tools did, what was answered last. */
function summarise(messages: readonly Message[]): string {
  const earlier: string[] = [];
  const prompts: string[] = [];
  const calls = new Map<string, string>();
  const outcomes: string[] = [];
  let lastAnswer: string | undefined;
  for (const message of messages) {
    switch (message.role) {
      case 'compaction':
        earlier.push(message.summary);
        break;
      case 'user':
        prompts.push(message.content);
        break;
      case 'assistant': {
        const text = message.content
          .flatMap((block) => (block.type === 'text' ? [block.text] : []))
          .join('')
          .replace(OFFLINE_PREFIX, '')
          .trim();
        if (text !== '') lastAnswer = text;
        for (const block of message.content) if (block.type === 'tool_call') calls.set(block.id, `${block.name} ${JSON.stringify(block.input)}`);
        break;
      }
      case 'tool_result':
        outcomes.push(`${calls.get(message.tool_call_id) ?? message.tool_name} → ${message.is_error ? 'failed' : 'ok'}: ${short(message.content, 120)}`);
        break;
      case 'system':
        break;
      default: {
        const unexpected: never = message;
        return unexpected;
      }
    }
  }
  const lines = [`${OFFLINE_PREFIX} Summary of the conversation so far, made without a model:`];
  if (earlier.length > 0) lines.push(`- Earlier summary: ${short(earlier[earlier.length - 1]!, 400)}`);
  if (prompts.length > SUMMARY_PROMPTS) lines.push(`- ${prompts.length - SUMMARY_PROMPTS} earlier prompts left out.`);
  for (const prompt of prompts.slice(-SUMMARY_PROMPTS)) lines.push(`- The user asked: "${short(prompt, 200)}"`);
  for (const outcome of outcomes.slice(-SUMMARY_PROMPTS)) lines.push(`- Tool call: ${outcome}`);
  if (lastAnswer !== undefined) lines.push(`- Last answer: "${short(lastAnswer, 200)}"`);
  if (lines.length === 1) lines.push('- Nothing was said yet.');
  return lines.join('\n');
}

function short(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
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
