/**
 * What the AI SDK's chat routes answer (`GET /chat/{id}`), as zod/mini schemas: the SDK's
 * `UIMessage` as panto writes it. Strict, as every response schema (see response-schemas.ts).
 */
import * as z from 'zod/mini';
import { usage } from './response-schemas.js';

/** What panto puts in an assistant `UIMessage`'s `metadata` (`GET /chat/{id}`, and the stream's `start` and `finish`). */
export const chatMetadata = z.strictObject({
  session_id: z.optional(z.string()),
  usage: z.optional(usage),
  cost_usd: z.optional(z.nullable(z.number())),
  stop_reason: z.optional(z.string()),
  incomplete: z.optional(z.boolean()),
  incomplete_reason: z.optional(z.string()),
});

const toolApproval = z.strictObject({ id: z.string(), approved: z.optional(z.boolean()), reason: z.optional(z.string()) });

/** A part of a `UIMessage`, as panto writes them (the AI SDK's types: text, reasoning, step start, dynamic tool). */
const chatPart = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string(), state: z.optional(z.enum(['streaming', 'done'])) }),
  z.strictObject({ type: z.literal('reasoning'), text: z.string(), state: z.optional(z.enum(['streaming', 'done'])) }),
  z.strictObject({ type: z.literal('step-start') }),
  z.strictObject({
    type: z.literal('dynamic-tool'),
    toolName: z.string(),
    toolCallId: z.string(),
    state: z.enum(['input-available', 'approval-requested', 'approval-responded', 'output-available', 'output-error', 'output-denied']),
    input: z.unknown(),
    output: z.optional(z.unknown()),
    errorText: z.optional(z.string()),
    approval: z.optional(toolApproval),
  }),
]);

/** A message of the AI SDK's `UIMessage[]`. */
export const chatMessage = z.strictObject({
  id: z.string(),
  role: z.enum(['system', 'user', 'assistant']),
  metadata: z.optional(chatMetadata),
  parts: z.array(chatPart),
});

export const chatMessages = z.array(chatMessage);
