/**
 * The session format's messages as the API answers them (zod/mini): the blocks, each role's
 * message, a stored message with its entry's id and time, and the answer so far of a running
 * turn. The rest of the responses, built on these, are in `response-schemas.ts`.
 */
import { STOP_REASONS } from '@panto/core/agent-kit';
import * as z from 'zod/mini';

export const count = z.int().check(z.minimum(0));
export const timestamp = z.string().check(z.describe('ISO 8601 UTC timestamp'));

export const usage = z.strictObject({
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
});

export const activeModel = z.strictObject({ provider: z.string(), model: z.string() });

export const stopReason = z.enum(STOP_REASONS as unknown as [string, ...string[]]);

export const assistantBlock = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.strictObject({ type: z.literal('redacted_thinking'), data: z.string() }),
  z.strictObject({ type: z.literal('tool_call'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
]);

/** The fields of each message of the session format (docs/session-format.md), by role. */
export const messageShapes = {
  system: { role: z.literal('system'), content: z.string(), mode: z.enum(['replace', 'append']) },
  user: { role: z.literal('user'), content: z.string(), provider: z.optional(z.string()), model: z.optional(z.string()) },
  assistant: {
    role: z.literal('assistant'),
    content: z.array(assistantBlock),
    provider: z.string(),
    model: z.string(),
    usage,
    stop_reason: stopReason,
    raw_stop_reason: z.optional(z.string()),
    error_message: z.optional(z.string()),
    approval_requests: z.optional(
      z
        .array(z.strictObject({ tool_call_id: z.string(), reason: z.string() }))
        .check(z.describe('for stop_reason awaiting_approval: the calls of this message that wait for a decision, and why each asks')),
    ),
  },
  tool_result: {
    role: z.literal('tool_result'),
    tool_call_id: z.string(),
    tool_name: z.string(),
    content: z.string(),
    is_error: z.boolean(),
    images: z.optional(
      z
        .array(z.strictObject({ type: z.literal('image'), media_type: z.string(), data: z.string().check(z.describe('base64')) }))
        .check(z.describe("images the tool returned besides its text (an MCP server's screenshot, say)")),
    ),
  },
  compaction: { role: z.literal('compaction'), summary: z.string(), provider: z.string(), model: z.string(), usage, prior_usage: usage },
};

/** A message of the session format (docs/session-format.md). */
export const message = z.discriminatedUnion('role', [
  z.strictObject(messageShapes.system),
  z.strictObject(messageShapes.user),
  z.strictObject(messageShapes.assistant),
  z.strictObject(messageShapes.tool_result),
  z.strictObject(messageShapes.compaction),
]);

/** Where a message is stored: its entry's id and time (absent for a tool result the rebuild synthesized). */
/** Present on an entry stored before panto refused JSON nested too deep: it was loaded in part, and this says why. */
export const unreadable = z.optional(
  z
    .string()
    .check(
      z.describe(
        'why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole',
      ),
    ),
);

export const entryFields = {
  id: z.optional(z.string().check(z.describe("the id of the message's entry: a parent_id / entry_id for the tree routes"))),
  timestamp: z.optional(timestamp),
  unreadable,
  accepts_prompt: z.optional(
    z
      .boolean()
      .check(
        z.describe(
          'whether a prompt may follow this entry — its id is a `parent_id` POST /sessions/{id}/messages accepts: an answer that calls no tools, a system message, a compaction; absent when `id` is',
        ),
      ),
  ),
};

/** A message as the API answers it: with its entry's `id` and `timestamp`. */
export const storedMessage = z.discriminatedUnion('role', [
  z.strictObject({ ...messageShapes.system, ...entryFields }),
  z.strictObject({ ...messageShapes.user, ...entryFields }),
  z.strictObject({ ...messageShapes.assistant, ...entryFields }),
  z.strictObject({ ...messageShapes.tool_result, ...entryFields }),
  z.strictObject({ ...messageShapes.compaction, ...entryFields }),
]);

/**
 * The answer a running turn has produced so far, stored about once a second while the model
 * writes (none in a turn's first second): the assistant message as it stands, without a stop
 * reason (it has not stopped), and when it was stored.
 */
export const partialAnswer = z.strictObject({
  message: z.strictObject({
    role: z.literal('assistant'),
    content: z.array(assistantBlock),
    provider: z.string(),
    model: z.string(),
    usage,
  }),
  updated_at: timestamp,
});
