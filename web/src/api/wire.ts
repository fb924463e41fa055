/**
 * The API's wire types as the page names them: each the schema of that name in the server's
 * OpenAPI document, generated into ./wire.gen.ts (`npm run generate:wire`; docs/web.md) — no
 * field is written here. Types only: nothing of this reaches the bundle.
 */
import type { components } from './wire.gen.js';

/** The API's schemas, by their names in the OpenAPI document. */
type Schemas = components['schemas'];

export type Usage = Schemas['Usage'];
/** A message as the API answers it: with its entry's `id` and `timestamp`. */
export type StoredMessage = Schemas['StoredMessage'];
export type AssistantBlock = Extract<StoredMessage, { role: 'assistant' }>['content'][number];
export type SessionSummary = Schemas['SessionSummary'];
export type SessionList = Schemas['SessionList'];
export type SessionContents = Schemas['SessionContents'];
/** `GET /models`: the providers and models a session may choose, and the default. */
export type Models = Schemas['Models'];
export type CreateSessionRequest = Schemas['CreateSessionRequest'];
export type SessionExport = Schemas['SessionExport'];
export type Compaction = Schemas['Compaction'];
/** `GET /sessions/{id}/tree`: the leaves (each with a preview), the branch points and the active leaf. */
export type SessionTree = Schemas['SessionTree'];
export type TreeLeaf = SessionTree['leaves'][number];
/** An entry of the session log, as `GET /sessions/{id}/entries` answers it. */
export type Entry = Schemas['Entry'];
export type EntriesPage = Schemas['EntriesPage'];
export type ActiveModel = Schemas['ActiveModel'];
export type UpdateSessionRequest = Schemas['UpdateSessionRequest'];
export type RunTurnRequest = Schemas['RunTurnRequest'];
/** `GET /usage`: your totals today and this month (UTC), your limits (null: none), and when the totals reset. */
export type UsageReport = Schemas['UsageReport'];
/** The body of every error answer. */
export type ErrorAnswer = Schemas['Error'];

/**
 * The data of a stream's `end` event (docs/api.md; the document types an event stream as text
 * only), as far as the page reads it: a streamed turn's answer without `messages` — after a
 * failure with the error answer's `status` and `error`. A followed turn's has none of these.
 */
export type TurnEnd = Partial<Omit<Schemas['FailedTurn'], 'messages'>> & { status?: number };

/** The answer of a running turn so far (`turn.partial`, and a follower's `partial` events): the message without a stop reason. */
export type PartialAnswer = Schemas['PartialAnswer'];

/**
 * What a streamed or followed turn hands the page, in order. `partial` (followers only): the
 * answer so far, replacing what the one before showed.
 */
export type TurnEvent =
  | { type: 'text-delta'; delta: string }
  | { type: 'partial'; message: PartialAnswer['message'] }
  | { type: 'message'; message: StoredMessage }
  | { type: 'end'; end: TurnEnd };
