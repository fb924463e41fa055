/**
 * What the API answers, as zod/mini schemas: the OpenAPI document is generated from them
 * (`openapi.ts`), the HTTP tests check every real response against that document, and the
 * routes build their bodies as these schemas' types (the `…Json` types below). The requests are in `request-schemas.ts`.
 *
 * Every schema here is strict (no field beyond those listed): a field added to a response
 * without its schema makes the conformance tests fail.
 */
import { STOP_REASONS } from '@panto/core/agent-kit';
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

/** The fields of each message of the session format (docs/session-format.md), by role. */
const messageShapes = {
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
const unreadable = z.optional(
  z
    .string()
    .check(
      z.describe(
        'why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole',
      ),
    ),
);

const entryFields = {
  id: z.optional(z.string().check(z.describe("the id of the message's entry: a parent_id / entry_id for the tree routes"))),
  timestamp: z.optional(timestamp),
  unreadable,
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

/** The turn (or compaction) running on a session, from any connection. */
export const runningTurn = z.strictObject({
  running: z.literal(true),
  started_at: z.nullable(timestamp),
  stop_requested: z.boolean(),
  /** Read by `GET /sessions/{id}`; null elsewhere, and when none is stored. */
  partial: z.nullable(partialAnswer),
});

const entryId = z.string();
const entryHead = { id: entryId, parent_id: z.nullable(entryId), timestamp, unreadable };

/** A person's decision on one tool call that waited for it. */
export const approvalDecision = z.strictObject({
  tool_call_id: z.string(),
  decision: z.enum(['approve', 'deny']),
  reason: z.optional(z.string()),
});

/** The log entry that records decisions (docs/session-format.md): written before an approved call runs. */
export const approvalEntry = z.strictObject({ id: entryId, timestamp, decisions: z.array(approvalDecision) });

/** A tool call that waits for a person's decision before it runs. */
export const pendingApproval = z.strictObject({
  tool_call_id: z.string().check(z.describe('the `id` of the tool_call block; what a decision names')),
  tool: z.string().check(z.describe('the tool, as the model called it (`mcp__<server>__<tool>`)')),
  input: z.record(z.string(), z.unknown()).check(z.describe('the input the model gave it')),
  reason: z.string().check(z.describe('why this call asks for approval')),
});

const pendingApprovals = z.array(pendingApproval).check(z.describe('the tool calls the session waits on, in the order the model made them'));

/** An entry of the session log as its line holds it (docs/session-format.md), without `batch_size`. */
export const entry = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('message'), ...entryHead, message }),
  z.strictObject({
    type: z.literal('compaction'),
    ...entryHead,
    summary: z.string(),
    provider: z.string(),
    model: z.string(),
    usage,
    prior_usage: usage,
  }),
  z.strictObject({ type: z.literal('leaf'), ...entryHead }),
  z.strictObject({ type: z.literal('approval'), ...entryHead, decisions: z.array(approvalDecision) }),
]);

export const errorDetail = z.strictObject({
  code: z.string().check(z.describe('stable, machine-readable: invalid_body, unauthorized, session_not_found, …')),
  message: z.string(),
  field: z.optional(z.string().check(z.describe('for invalid_body / invalid_query: the offending field, dotted'))),
  line: z.optional(z.int().check(z.describe('for invalid_session: the 1-based line of the body that is not a session log line'))),
});

export const errorResponse = z.strictObject({ error: errorDetail });

export const sessionSummary = z.strictObject({
  id: z.string(),
  created_at: timestamp,
  updated_at: timestamp,
  active_model: activeModel,
  title: z.nullable(z.string()),
  entry_count: count,
  archived: z.boolean().check(z.describe('in S3 (cold): opening it brings it back')),
});

/** `POST /sessions/import`: the new session, and the id its log's header had (never kept). */
export const importedSession = z.strictObject({
  ...sessionSummary.shape,
  imported_from: z.string().check(z.describe("the session id in the imported log's header; the new session always has a new id")),
});

/** Where the next page of a list starts. */
const nextCursor = z.nullable(z.string().check(z.describe('pass back as `cursor` for the next page; null on the last page')));

export const sessionList = z.strictObject({
  sessions: z.array(sessionSummary),
  next_cursor: nextCursor,
});

export const sessionContents = z.strictObject({
  id: z.string(),
  messages: z.array(storedMessage),
  dangling_user: z.nullable(z.string()),
  active_model: activeModel,
  usage,
  entry_count: count.check(z.describe('log entries this answer reflects: `from` for GET /sessions/{id}/events')),
  turn: z.nullable(runningTurn),
  pending_approvals: pendingApprovals,
});

export const entriesPage = z.strictObject({
  entries: z.array(entry),
  next_cursor: nextCursor,
});

export const sessionTree = z.strictObject({
  active_leaf: z.nullable(entryId),
  leaves: z.array(z.strictObject({ id: entryId, timestamp, preview: z.string() })),
  branch_points: z.array(entryId),
});

export const stoppedTurn = z.strictObject({ turn: runningTurn });

export const incompleteReason = z.enum(['deadline', 'cancelled', 'stopped', 'provider_error', 'max_provider_calls', 'budget']);

export const turn = z.strictObject({
  messages: z.array(storedMessage),
  usage,
  stop_reason: stopReason,
  incomplete: z.boolean(),
  incomplete_reason: z.optional(incompleteReason),
  pending_approvals: z.optional(pendingApprovals.check(z.describe('for stop_reason awaiting_approval: the calls the turn paused on'))),
  approval: z.optional(approvalEntry.check(z.describe('for a turn resumed by decisions: the entry that stored them'))),
});

/** A turn the provider failed (502): what it stored, and why it stopped. */
export const failedTurn = z.strictObject({ ...turn.shape, error: errorDetail });

/** A turn that stopped with an error (what it stored, and the error), or a request refused before it ran. */
export const turnOrError = z.union([failedTurn, errorResponse]);

export const compaction = z.strictObject({ summary: z.string(), usage });

export const sessionExport = z.strictObject({
  bucket: z.string(),
  key: z.string(),
  url: z.string().check(z.describe('presigned GET URL of the JSONL, valid for expires_in seconds')),
  bytes: count,
  entries: count,
  expires_in: z.int(),
});

export const exportList = z.strictObject({
  exports: z.array(
    z.strictObject({
      kind: z.enum(['export', 'archive']),
      key: z.string(),
      created_at: timestamp,
      bytes: count,
      entries: z.nullable(count),
      storage_class: z.string(),
      url: z.string().check(z.describe('presigned GET URL, valid for expires_in seconds')),
    }),
  ),
  expires_in: z.int(),
});

export const health = z.strictObject({
  status: z.enum(['ok', 'degraded']),
  version: z.string(),
  table: z.enum(['ok', 'unavailable']).check(z.describe('whether the DynamoDB table answered a read just now')),
});

export const models = z.strictObject({
  default: activeModel.check(z.describe('what a session uses when it names no provider or model')),
  providers: z.array(
    z.strictObject({
      name: z.string(),
      default_model: z.string().check(z.describe('the model a session of this provider uses when it names none')),
      models: z.array(
        z.strictObject({
          id: z.string(),
          status: z.nullable(z.enum(['active', 'legacy', 'deprecated', 'retired'])).check(z.describe('null: not in the catalog (an extra model)')),
        }),
      ),
      any_model: z.boolean().check(z.describe('the provider has a base URL on this server: any model name is accepted')),
    }),
  ),
});

const usageTotals = z.strictObject({
  usd: z.number().check(z.describe('US dollars at the catalog prices of the turns whose model has a known price')),
  input_tokens: count,
  output_tokens: count,
  cache_read_tokens: count,
  cache_write_tokens: count,
  turns: count,
  usd_unknown_turns: count.check(z.describe('turns whose model has no known price: their tokens are counted, their dollars are not in usd')),
});

const limit = (what: string) => z.nullable(z.number()).check(z.describe(`${what}; null: none`));

export const usageReport = z.strictObject({
  today: usageTotals.check(z.describe('this UTC day')),
  month: usageTotals.check(z.describe('this UTC month')),
  limits: z.strictObject({
    daily_usd: limit('the daily spend budget in US dollars'),
    monthly_usd: limit('the monthly spend budget in US dollars'),
    turns_per_minute: limit('turns that may start in a UTC minute'),
    concurrent_turns: limit('turns that may run at once, across all your sessions'),
  }),
  resets: z.strictObject({
    day: timestamp.check(z.describe('when today’s totals start again (the next UTC midnight)')),
    month: timestamp.check(z.describe('when this month’s totals start again')),
  }),
});

/** The names the OpenAPI document gives these schemas (one not named here is named after its first operation). */
export const NAMED_SCHEMAS = {
  Usage: usage,
  ActiveModel: activeModel,
  Message: message,
  StoredMessage: storedMessage,
  Entry: entry,
  EntriesPage: entriesPage,
  SessionTree: sessionTree,
  RunningTurn: runningTurn,
  PartialAnswer: partialAnswer,
  StoppedTurn: stoppedTurn,
  PendingApproval: pendingApproval,
  ApprovalDecision: approvalDecision,
  ApprovalEntry: approvalEntry,
  Error: errorResponse,
  ErrorDetail: errorDetail,
  SessionSummary: sessionSummary,
  ImportedSession: importedSession,
  SessionList: sessionList,
  SessionContents: sessionContents,
  Turn: turn,
  FailedTurn: failedTurn,
  TurnOrError: turnOrError,
  Compaction: compaction,
  SessionExport: sessionExport,
  ExportList: exportList,
  Health: health,
  Models: models,
  UsageReport: usageReport,
  UsageTotals: usageTotals,
} as const;

// The bodies' types, as the routes build them: from these schemas, so that a route cannot
// answer what the OpenAPI document does not describe.
export type StoredMessageJson = z.output<typeof storedMessage>;
export type RunningTurnJson = z.output<typeof runningTurn>;
export type PartialAnswerJson = z.output<typeof partialAnswer>;
export type EntryJson = z.output<typeof entry>;
export type SessionSummaryJson = z.output<typeof sessionSummary>;
export type ImportedSessionJson = z.output<typeof importedSession>;
export type SessionListJson = z.output<typeof sessionList>;
export type SessionContentsJson = z.output<typeof sessionContents>;
export type EntriesPageJson = z.output<typeof entriesPage>;
export type SessionTreeJson = z.output<typeof sessionTree>;
export type StoppedTurnJson = z.output<typeof stoppedTurn>;
export type PendingApprovalJson = z.output<typeof pendingApproval>;
export type ApprovalEntryJson = z.output<typeof approvalEntry>;
export type IncompleteReason = z.output<typeof incompleteReason>;
export type TurnJson = z.output<typeof turn>;
export type CompactionJson = z.output<typeof compaction>;
export type SessionExportJson = z.output<typeof sessionExport>;
export type ExportListJson = z.output<typeof exportList>;
export type HealthJson = z.output<typeof health>;
export type ModelsJson = z.output<typeof models>;
export type UsageReportJson = z.output<typeof usageReport>;
