/**
 * What the API answers, as zod/mini schemas: the OpenAPI document is generated from them
 * (`openapi.ts`), the HTTP tests check every real response against that document, and the
 * routes build their bodies as these schemas' types. The requests are in `schemas.ts`.
 *
 * Every schema here is strict (no field beyond those listed): a field added to a response
 * without its schema makes the conformance tests fail.
 */
import { STOP_REASONS } from '@panto/core';
import * as z from 'zod/mini';

const count = z.int().check(z.minimum(0));
const timestamp = z.string().check(z.describe('ISO 8601 UTC timestamp'));

export const usage = z.strictObject({
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
});

export const activeModel = z.strictObject({ provider: z.string(), model: z.string() });

const stopReason = z.enum(STOP_REASONS as unknown as [string, ...string[]]);

const assistantBlock = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.strictObject({ type: z.literal('redacted_thinking'), data: z.string() }),
  z.strictObject({ type: z.literal('tool_call'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
]);

/** A message of the session format (docs/session-format.md). */
export const message = z.discriminatedUnion('role', [
  z.strictObject({ role: z.literal('system'), content: z.string(), mode: z.enum(['replace', 'append']) }),
  z.strictObject({ role: z.literal('user'), content: z.string(), provider: z.optional(z.string()), model: z.optional(z.string()) }),
  z.strictObject({
    role: z.literal('assistant'),
    content: z.array(assistantBlock),
    provider: z.string(),
    model: z.string(),
    usage,
    stop_reason: stopReason,
    raw_stop_reason: z.optional(z.string()),
    error_message: z.optional(z.string()),
  }),
  z.strictObject({
    role: z.literal('tool_result'),
    tool_call_id: z.string(),
    tool_name: z.string(),
    content: z.string(),
    is_error: z.boolean(),
  }),
  z.strictObject({ role: z.literal('compaction'), summary: z.string(), provider: z.string(), model: z.string(), usage, prior_usage: usage }),
]);

export const errorDetail = z.strictObject({
  code: z.string().check(z.describe('stable, machine-readable: invalid_body, unauthorized, session_not_found, …')),
  message: z.string(),
  field: z.optional(z.string().check(z.describe('for invalid_body / invalid_query: the offending field, dotted'))),
});

export const errorResponse = z.strictObject({ error: errorDetail });

export const sessionSummary = z.strictObject({
  id: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  active_model: activeModel,
  title: z.nullable(z.string()),
  entry_count: count,
});

export const sessionList = z.strictObject({
  sessions: z.array(sessionSummary),
  next_cursor: z.nullable(z.string().check(z.describe('pass back as `cursor` for the next page; null on the last page'))),
});

export const sessionContents = z.strictObject({
  id: z.string(),
  messages: z.array(message),
  dangling_user: z.nullable(z.string()),
  active_model: activeModel,
  usage,
});

export const incompleteReason = z.enum(['deadline', 'cancelled', 'provider_error', 'max_provider_calls']);

export const turn = z.strictObject({
  messages: z.array(message),
  usage,
  stop_reason: stopReason,
  incomplete: z.boolean(),
  incomplete_reason: z.optional(incompleteReason),
});

/** A turn the provider failed (502): what it stored, and why it stopped. */
export const failedTurn = z.strictObject({ ...turn.shape, error: errorDetail });

export const compaction = z.strictObject({ summary: z.string(), usage });

export const sessionExport = z.strictObject({
  bucket: z.string(),
  key: z.string(),
  url: z.string().check(z.describe('presigned GET URL of the JSONL, valid for expires_in seconds')),
  bytes: count,
  entries: count,
  expires_in: z.int(),
});

export const health = z.strictObject({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  table: z.enum(['ok', 'unavailable']).check(z.describe('whether the DynamoDB table answered a read just now')),
});

/** The names the OpenAPI document gives these schemas (one not named here is named after its first operation). */
export const NAMED_SCHEMAS = {
  Usage: usage,
  ActiveModel: activeModel,
  Message: message,
  Error: errorResponse,
  ErrorDetail: errorDetail,
  SessionSummary: sessionSummary,
  SessionList: sessionList,
  SessionContents: sessionContents,
  Turn: turn,
  FailedTurn: failedTurn,
  Compaction: compaction,
  SessionExport: sessionExport,
  Health: health,
} as const;

export type SessionSummaryJson = z.output<typeof sessionSummary>;
export type SessionListJson = z.output<typeof sessionList>;
export type SessionContentsJson = z.output<typeof sessionContents>;
export type TurnJson = z.output<typeof turn>;
export type HealthJson = z.output<typeof health>;
export type IncompleteReason = z.output<typeof incompleteReason>;
