/**
 * The request bodies and queries the API accepts. Unknown fields are refused, by name.
 * `zod/mini` rather than `zod`: the same validation, a tenth of the bundle (cold starts).
 */
import * as z from 'zod/mini';
import { invalidField } from './errors.js';

const INTEGER_1_TO_100 = 'an integer from 1 to 100';

const name = z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(200, 'at most 200 characters'));

export const createSessionBody = z.strictObject({
  /** The session's system prompt. */
  system: z.optional(z.string().check(z.maxLength(100_000, 'at most 100000 characters'))),
  /** The provider its turns use (`anthropic`, `openai`, `offline`); the server's default when absent. */
  provider: z.optional(name.check(z.regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, - and _ only'))),
  /** The model its turns use; the provider's default when absent. */
  model: z.optional(name),
});

export const messageBody = z.strictObject({
  /** The user's prompt. */
  text: z.string().check(z.refine((text) => text.trim() !== '', 'must not be empty')),
});

export const compactBody = z.strictObject({
  /** What the summary must keep, besides the default. */
  instructions: z.optional(z.string().check(z.maxLength(10_000, 'at most 10000 characters'))),
});

export const exportBody = z.strictObject({
  /** Lifetime of the presigned URL, in seconds (60 s to 7 days). */
  expires_in: z.optional(z.int().check(z.minimum(60, 'at least 60'), z.maximum(604_800, 'at most 604800 (7 days)'))),
});

/** `expires_in` as a query parameter: the same range as the export body's. */
const EXPIRES_IN_RANGE = 'an integer from 60 to 604800 (7 days)';

export const exportsQuery = z.strictObject({
  /** Lifetime of each presigned URL, in seconds (60 s to 7 days). */
  expires_in: z.optional(
    z.pipe(
      z.string().check(z.regex(/^[0-9]{1,6}$/, EXPIRES_IN_RANGE)),
      z.pipe(z.transform(Number), z.int().check(z.minimum(60, EXPIRES_IN_RANGE), z.maximum(604_800, EXPIRES_IN_RANGE))),
    ),
  ),
});

export const listQuery = z.strictObject({
  limit: z.optional(
    z.pipe(
      z.string().check(z.regex(/^[0-9]{1,3}$/, INTEGER_1_TO_100)),
      z.pipe(
        z.transform(Number),
        z.int().check(z.minimum(1, INTEGER_1_TO_100), z.maximum(100, INTEGER_1_TO_100)),
      ),
    ),
  ),
  cursor: z.optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(2048, 'at most 2048 characters'))),
});

/**
 * Validates `value`, or throws a 400 `RequestError` that names the first offending field.
 */
export function parse<Schema extends z.ZodMiniType>(kind: 'body' | 'query', schema: Schema, value: unknown): z.output<Schema> {
  const result = schema.safeParse(value);
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
