/**
 * The request bodies and queries the API accepts. Unknown fields are refused, by name.
 * `zod/mini` rather than `zod`: the same validation, a tenth of the bundle (cold starts).
 * Each schema is built at its first use and kept (`once`): a cold start builds none of
 * them, a request only those it parses with.
 */
import { titleProblem } from '@panto/aws/service';
import { ID_RULE, isValidId, isValidModelName, MODEL_NAME_RULE } from '@panto/core/agent-kit';
import * as z from 'zod/mini';
import { invalidField } from '../errors.js';

/** `build()` at the first call, the same schema at every call after. */
function once<Schema>(build: () => Schema): () => Schema {
  let schema: Schema | undefined;
  return () => {
    schema ??= build();
    return schema;
  };
}

const INTEGER_1_TO_100 = 'an integer from 1 to 100';
const INTEGER_1_TO_500 = 'an integer from 1 to 500';

const name = once(() => z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(200, 'at most 200 characters')));

/** An entry id: the id rule of the session format (whether the session holds it is the service's question). */
const entryId = once(() => z.string().check(z.refine((id) => isValidId(id), `not an entry id: ${ID_RULE}`)));

/** A provider name, as at creation. */
const providerName = once(() => name().check(z.regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, - and _ only')));

/** A model name: the characters model names use, whatever the provider (see `isValidModelName`). */
const modelName = once(() => name().check(z.refine((model) => isValidModelName(model), MODEL_NAME_RULE)));

/** Text that stays itself when stored: no lone surrogate (`"\ud800"`), which UTF-8 would turn into U+FFFD. */
const LONE_SURROGATE = /\p{Cs}/u;
const unicodeText = once(() => z.refine<string>((text) => !LONE_SURROGATE.test(text), 'must be Unicode text: it holds a lone surrogate'));

/** A `limit` query parameter: digits, from 1 to `max`. */
function limitParameter(max: number, words: string) {
  return z.optional(
    z.pipe(z.string().check(z.regex(/^[0-9]{1,4}$/, words)), z.pipe(z.transform(Number), z.int().check(z.minimum(1, words), z.maximum(max, words)))),
  );
}

export const createSessionBody = once(() =>
  z.strictObject({
    /** The session's system prompt. */
    system: z.optional(z.string().check(z.maxLength(100_000, 'at most 100000 characters'), unicodeText())),
    /** The provider its turns use (`anthropic`, `openai`, `offline`); the server's default when absent. */
    provider: z.optional(providerName()),
    /** The model its turns use; the provider's default when absent. */
    model: z.optional(modelName()),
  }),
);

/**
 * What a turn does when its client goes away: runs to its end and stores everything
 * (`continue`, the default — the model call is paid for), or stops there (`abort`). The
 * default is filled in by validation, so that a request that leaves it out is the same
 * request as one that names it (an `Idempotency-Key` compares them after validation).
 */
const onDisconnect = once(() => z._default(z.enum(['continue', 'abort'], '"continue" or "abort"'), 'continue'));

export const messageBody = once(() =>
  z.strictObject({
    /** The user's prompt. */
    text: z.string().check(
      z.refine((text) => text.trim() !== '', 'must not be empty'),
      unicodeText(),
    ),
    on_disconnect: onDisconnect(),
    /**
     * Continue from this entry instead of the active leaf (a new branch): an assistant
     * message that calls no tools, a system message or a compaction; `null` for the root.
     */
    parent_id: z.optional(z.nullable(entryId())),
  }),
);

/** At most this many decisions in one request: more than any model's one message calls. */
const MAX_DECISIONS = 128;

/**
 * `POST /sessions/{id}/approvals`: a decision for every tool call the session waits on — the
 * calls are decided all at once — and what the resumed turn does when its client goes away.
 */
export const approvalsBody = once(() =>
  z.strictObject({
    decisions: z
      .array(
        z.strictObject({
          /** The `id` of the tool call (its `tool_call_id` in `pending_approvals`). */
          tool_call_id: z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(512, 'at most 512 characters')),
          decision: z.enum(['approve', 'deny'], '"approve" or "deny"'),
          /** Why: for a denial, what the model is told. */
          reason: z.optional(z.string().check(z.maxLength(2000, 'at most 2000 characters'), unicodeText())),
        }),
      )
      .check(
        z.minLength(1, 'decide at least one tool call'),
        z.maxLength(MAX_DECISIONS, `at most ${MAX_DECISIONS} decisions`),
        z.refine((decisions) => new Set(decisions.map((decision) => decision.tool_call_id)).size === decisions.length, 'a tool call is decided more than once'),
      ),
    on_disconnect: onDisconnect(),
  }),
);

/** At most this many messages in a `POST /chat` body: the server keeps the history, and reads only the newest. */
export const MAX_CHAT_MESSAGES = 10_000;

/**
 * `POST /chat`: the body of the AI SDK's `DefaultChatTransport` — the chat's `id` (a session
 * id), its `messages` (`UIMessage[]`: the server owns the history, so only the newest user
 * message, or the newest assistant message's approval responses, are read), `trigger` and
 * `messageId` (the message a regenerate or an edit replaces). Messages are checked only as
 * far as the server reads them; fields the SDK may add to a message are let through.
 */
export const chatBody = once(() =>
  z.strictObject({
    id: z.string().check(z.maxLength(200, 'at most 200 characters')),
    messages: z
      .array(
        z.looseObject({
          id: z.string().check(z.maxLength(200, 'at most 200 characters')),
          role: z.enum(['system', 'user', 'assistant'], '"system", "user" or "assistant"'),
          parts: z.array(z.looseObject({ type: z.string().check(z.maxLength(200, 'at most 200 characters')) })),
        }),
      )
      .check(z.minLength(1, 'send at least the newest message'), z.maxLength(MAX_CHAT_MESSAGES, `at most ${MAX_CHAT_MESSAGES} messages`)),
    trigger: z.enum(['submit-message', 'regenerate-message'], '"submit-message" or "regenerate-message"'),
    messageId: z.optional(z.string().check(z.maxLength(200, 'at most 200 characters'))),
  }),
);

/** `PATCH /sessions/{id}`: what to change (nothing given, nothing changes). */
export const updateSessionBody = once(() =>
  z.strictObject({
    /** The session's name in lists. */
    title: z.optional(
      z.string().check(
        z.superRefine((title, context) => {
          const problem = titleProblem(title);
          if (problem !== undefined) context.addIssue({ code: 'custom', message: problem, input: title });
        }),
      ),
    ),
    /** The provider its next turns use; with `model` absent, that provider's default model. */
    provider: z.optional(providerName()),
    /** The model its next turns use; with `provider` absent, of the session's provider. */
    model: z.optional(modelName()),
  }),
);

/** `PUT /sessions/{id}/leaf` and `POST /sessions/{id}/fork`: the entry to switch to or fork at. */
export const entryBody = once(() =>
  z.strictObject({
    entry_id: entryId(),
  }),
);

export const compactBody = once(() =>
  z.strictObject({
    /** What the summary must keep, besides the default. */
    instructions: z.optional(z.string().check(z.maxLength(10_000, 'at most 10000 characters'), unicodeText())),
    on_disconnect: onDisconnect(),
  }),
);

/** `POST /sessions/{id}/stop` takes no fields. */
export const stopBody = once(() => z.strictObject({}));

export const eventsQuery = once(() =>
  z.strictObject({
    /** The first entry index to send (`entry_count` of `GET /sessions/{id}`, or the last event `id`). */
    from: z.optional(z.pipe(z.string().check(z.regex(/^[0-9]{1,12}$/, 'a non-negative integer')), z.transform(Number))),
  }),
);

export const exportBody = once(() =>
  z.strictObject({
    /** Lifetime of the presigned URL, in seconds (60 s to 7 days). */
    expires_in: z.optional(z.int().check(z.minimum(60, 'at least 60'), z.maximum(604_800, 'at most 604800 (7 days)'))),
  }),
);

/** `expires_in` as a query parameter: the same range as the export body's. */
const EXPIRES_IN_RANGE = 'an integer from 60 to 604800 (7 days)';

export const exportsQuery = once(() =>
  z.strictObject({
    /** Lifetime of each presigned URL, in seconds (60 s to 7 days). */
    expires_in: z.optional(
      z.pipe(
        z.string().check(z.regex(/^[0-9]{1,6}$/, EXPIRES_IN_RANGE)),
        z.pipe(z.transform(Number), z.int().check(z.minimum(60, EXPIRES_IN_RANGE), z.maximum(604_800, EXPIRES_IN_RANGE))),
      ),
    ),
  }),
);

export const listQuery = once(() =>
  z.strictObject({
    limit: limitParameter(100, INTEGER_1_TO_100),
    cursor: z.optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(2048, 'at most 2048 characters'))),
  }),
);

/** `GET /sessions/{id}/entries`: a page of the log. */
export const entriesQuery = once(() =>
  z.strictObject({
    limit: limitParameter(500, INTEGER_1_TO_500),
    /** The `next_cursor` of the page before (the id of its last entry). */
    cursor: z.optional(entryId()),
  }),
);

/**
 * Validates `value` against the schema `schema()` builds (one of this module's), or throws a
 * 400 `RequestError` that names the first offending field.
 */
export function parse<Schema extends z.ZodMiniType>(kind: 'body' | 'query', schema: () => Schema, value: unknown): z.output<Schema> {
  const result = schema().safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (!issue) throw invalidField(kind, '', `invalid ${kind}`);
  if (issue.code === 'unrecognized_keys') {
    throw invalidField(kind, [...issue.path.map(String), issue.keys[0] ?? ''].join('.'), 'unknown field');
  }
  const field = issue.path.map(String).join('.');
  if (field === '') throw invalidField(kind, '', `the ${kind} must be a JSON object`);
  throw invalidField(kind, field, describe(issue, value));
}

/** What is wrong, in words (zod/mini carries no message catalogue). */
function describe(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code !== 'invalid_type') return issue.message;
  let found = value;
  for (const key of issue.path) found = typeof found === 'object' && found !== null ? (found as Record<PropertyKey, unknown>)[key] : undefined;
  return found === undefined ? 'required' : `expected ${issue.expected}`;
}
