/**
 * The words and schemas of every route, by operation id: what it takes (the same zod/mini
 * schemas that validate requests, from `request-schemas.ts`) and what it answers
 * (`response-schemas.ts`). Its method, path and whether it is public come from the route
 * manifest (`routes.ts`); the OpenAPI document is generated from both (`openapi.ts`). The type
 * of `ROUTE_DOCS` asks for an entry for each route of the manifest, and for no other.
 */
import type * as z from 'zod/mini';
import { ROUTE_LIST, type OperationId } from './routes.js';
import * as responses from './response-schemas.js';
import { chatMessages } from './chat-schemas.js';
import {
  approvalsBody,
  chatBody,
  compactBody,
  createSessionBody,
  entriesQuery,
  entryBody,
  eventsQuery,
  exportBody,
  exportsQuery,
  listQuery,
  messageBody,
  stopBody,
  updateSessionBody,
} from './request-schemas.js';

export interface ApiResponse {
  description: string;
  /** The JSON body; absent for a response without one (204). */
  schema?: z.ZodMiniType;
  /** Default `application/json`. */
  contentType?: string;
}

/** What the OpenAPI document says of a route besides its method and path. */
export interface RouteDocs {
  summary: string;
  description?: string;
  /** The JSON body (optional on every route: no body is `{}`). */
  body?: z.ZodMiniType;
  /** The query parameters, as one object schema. */
  query?: z.ZodMiniType;
  /** Takes an `Idempotency-Key` header (see docs/api.md, *Idempotency*). */
  idempotent?: true;
  /** The route's own answers, by status. */
  responses: { [status: number]: ApiResponse };
  /** The error statuses it may answer besides 401 (for every route that needs a token) and `default` (5xx). */
  errors?: readonly number[];
  /** A body that is not JSON (`POST /sessions/import`): its media type, and what it is. */
  rawBody?: { contentType: string; description: string };
  /** This route's own words for an error status, where the shared description does not fit. */
  errorDescriptions?: { [status: number]: string };
}

/** A route as the OpenAPI document describes it: its line of the manifest (method in OpenAPI's lower case) and its words. */
export interface ApiRoute extends RouteDocs {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** In OpenAPI's form: `/sessions/{id}`. */
  path: string;
  operationId: OperationId;
  /** Answered without a bearer token (and outside the JWT authorizer on API Gateway). */
  public?: true;
}

const stepLimits = 'Stops at the deadline (`PANTO_DEADLINE_MS`) with everything so far stored (`incomplete: true`).';

const ROUTE_DOCS: { [operation in OperationId]: RouteDocs } = {
  getHealth: {
    summary: 'Whether the service and its table answer',
    responses: {
      200: { description: 'The service and its table answer.', schema: responses.health },
      503: { description: 'The table did not answer.', schema: responses.health },
    },
  },
  getOpenAPI: {
    summary: 'This document',
    responses: { 200: { description: 'The OpenAPI 3.1 document of this API.' } },
  },
  listModels: {
    summary: 'The providers and models a session may choose, and the default',
    description:
      'Providers with a key configured here (and `offline`), each with the catalog models that are not retired, `PANTO_EXTRA_MODELS` and its default.',
    responses: { 200: { description: 'What `POST /sessions` accepts as `provider` and `model`.', schema: responses.models } },
  },
  getUsage: {
    summary: 'Your usage today and this month, your limits, and when the totals reset',
    description:
      'Totals of every turn of yours across all sessions (UTC day and month), as the usage ledger counts them in the same transaction as each turn’s writes.',
    responses: { 200: { description: 'Your totals, limits and resets.', schema: responses.usageReport } },
  },
  createSession: {
    summary: 'Create a session',
    description: 'Without `provider`/`model` the session follows the server default; a model its provider does not offer is a 400 naming `model`.',
    body: createSessionBody(),
    idempotent: true,
    responses: { 201: { description: 'The new session.', schema: responses.sessionSummary } },
    errors: [400, 409, 413, 422],
  },
  listSessions: {
    summary: 'List your sessions, newest first',
    query: listQuery(),
    responses: { 200: { description: 'A page of sessions.', schema: responses.sessionList } },
    errors: [400],
  },
  getSession: {
    summary: 'Read a session: its conversation, dangling prompt, model and usage',
    responses: { 200: { description: 'The session.', schema: responses.sessionContents } },
    errors: [404],
  },
  updateSession: {
    summary: 'Rename a session, or change the model its next turns use',
    description: 'A model change is validated as at creation and holds the session like a turn (409 while one runs).',
    body: updateSessionBody(),
    responses: { 200: { description: 'The session as listed.', schema: responses.sessionSummary } },
    errors: [400, 404, 409, 413, 422],
  },
  listEntries: {
    summary: 'The whole log in order: every branch, leaf entries, and what compactions replaced',
    query: entriesQuery(),
    responses: { 200: { description: 'A page of entries.', schema: responses.entriesPage } },
    errors: [400, 404],
  },
  getTree: {
    summary: "The session's tree: the active leaf, every leaf with a preview, the branch points",
    responses: { 200: { description: 'The tree.', schema: responses.sessionTree } },
    errors: [404],
  },
  switchLeaf: {
    summary: 'Switch the active branch to an entry, sending nothing',
    body: entryBody(),
    responses: { 200: { description: 'The session as it now reads.', schema: responses.sessionContents } },
    errors: [400, 404, 409, 413],
  },
  forkSession: {
    summary: 'A new session holding the path to an entry',
    body: entryBody(),
    responses: { 201: { description: 'The new session.', schema: responses.sessionSummary } },
    errors: [400, 404, 413],
  },
  listExports: {
    summary: "The session's exports and archives in S3, with fresh download URLs",
    query: exportsQuery(),
    responses: { 200: { description: 'Newest first.', schema: responses.exportList } },
    errors: [400, 404],
  },
  importSession: {
    summary: 'A new session from a JSONL session log (an export) as the body',
    description:
      "Body: `application/x-ndjson`, the export format, within the body limit. The session gets a new id; the header's is `imported_from`. A corrupt line — also one nested deeper than 128 levels, or a timestamp that is not ISO 8601 — is a 400 `invalid_session` naming it, and nothing is created.",
    rawBody: {
      contentType: 'application/x-ndjson',
      description: 'A session log in the export format (docs/session-format.md): a header line, then one entry per line.',
    },
    responses: { 201: { description: 'The new session.', schema: responses.importedSession } },
    errors: [400, 413],
    errorDescriptions: {
      400: 'The body is not a session log: a line that is not JSON, not UTF-8 or not an entry (`invalid_session`, naming the `line`); nothing is created.',
    },
  },
  stopTurn: {
    summary: 'Ask the turn running on the session to stop',
    body: stopBody(),
    responses: { 202: { description: 'The running turn was asked to stop.', schema: responses.stoppedTurn } },
    errors: [404, 409, 413],
  },
  followSession: {
    summary: 'Follow the running turn: the messages it stores, as server-sent events',
    description:
      'Events: `turn` ({ turn }) first; `message` ({ message }, `id` = the `from` to continue after it) for each message stored from `from` on; `approval` ({ approval }, with an `id` too) for decisions that resumed a paused turn; one `end` ' +
      '({ entry_count, turn, pending_approvals?, status?, error? }). On AWS this route is served by the streaming function URL.',
    query: eventsQuery(),
    responses: { 200: { description: 'The followed turn as server-sent events.', contentType: 'text/event-stream' } },
    errors: [400, 404],
  },
  deleteSession: {
    summary: 'Delete a session with everything of it',
    responses: { 204: { description: 'Deleted (also when an earlier delete had begun).' } },
    errors: [404],
  },
  runTurn: {
    summary: 'Run one turn',
    description: `${stepLimits} A tool call that asks for approval pauses the turn (\`stop_reason: "awaiting_approval"\`, \`pending_approvals\`); while calls wait, a prompt is refused with 409 \`approval_pending\`.`,
    body: messageBody(),
    idempotent: true,
    responses: {
      200: { description: 'The messages the turn added, its usage and stop reason.', schema: responses.turn },
      422: {
        description:
          'Refused before the turn (`provider_not_configured`, `model_price_unknown`, `idempotency_key_reused`), or the turn stopped because this deployment may not call the model (`model_access_denied`): what the turn stored, and the error.',
        schema: responses.turnOrError,
      },
      502: { description: 'The provider failed; what the turn stored, and the error.', schema: responses.failedTurn },
      503: {
        description:
          'The provider kept throttling or was down after retries (`provider_unavailable`, with Retry-After): what the turn stored, and the error — or the store is unavailable (`unavailable`, `service_unavailable`).',
        schema: responses.turnOrError,
      },
    },
    errors: [400, 404, 409, 413, 422, 429],
  },
  streamTurn: {
    summary: 'Run one turn, streamed as server-sent events',
    description:
      'Events: `message` ({ message }) for each stored message, the prompt first; `text-delta` ({ delta }); one `end` ' +
      '({ usage, stop_reason, incomplete, incomplete_reason?, pending_approvals?, status?, error? }). On AWS this route is served by the streaming function URL.',
    body: messageBody(),
    responses: { 200: { description: 'The turn as server-sent events.', contentType: 'text/event-stream' } },
    errors: [400, 404, 409, 413, 422, 429],
  },
  decideApprovals: {
    summary: 'Decide the tool calls the session waits on, and resume its turn',
    description:
      'Approve or deny every call in `pending_approvals` at once. The decisions are stored before any approved call runs (a denial becomes an error result the model sees); the turn then goes on as `POST /sessions/{id}/messages` runs one. ' +
      '409 `approval_not_pending` for a call that does not wait (unknown, or decided already), `approval_undecided` for a waiting call left out, `session_busy` while a turn runs. ' +
      stepLimits,
    body: approvalsBody(),
    idempotent: true,
    responses: {
      200: {
        description: 'The messages the resumed turn added (the denials first), its usage and stop reason, and the decisions as stored.',
        schema: responses.turn,
      },
      422: { description: 'As for `POST /sessions/{id}/messages`.', schema: responses.turnOrError },
      502: { description: 'The provider failed; what the turn stored, and the error.', schema: responses.failedTurn },
      503: { description: 'As for `POST /sessions/{id}/messages`.', schema: responses.turnOrError },
    },
    errors: [400, 404, 409, 413, 422, 429],
  },
  streamApprovals: {
    summary: 'Decide the tool calls the session waits on, and stream the resumed turn as server-sent events',
    description:
      'The decisions of `POST /sessions/{id}/approvals`; events as a streamed turn: `approval` ({ approval }) first, `message` ({ message }) for the denials and each message stored after, `text-delta` ({ delta }), one `end` ' +
      '({ usage, stop_reason, incomplete, incomplete_reason?, pending_approvals?, status?, error? }). On AWS this route is served by the streaming function URL.',
    body: approvalsBody(),
    responses: { 200: { description: 'The resumed turn as server-sent events.', contentType: 'text/event-stream' } },
    errors: [400, 404, 409, 413, 422, 429],
  },
  getAgentCard: {
    summary: 'The A2A Agent Card: who this agent is, its skill and models, its JSON-RPC interface and how to authenticate',
    description:
      "A2A v1.0 (see docs/api.md, *A2A*). `supportedInterfaces[0].url` is the JSON-RPC interface (`POST /a2a`; on AWS the streaming function's); `securitySchemes` the deployment's tokens: " +
      'its OpenID Connect issuer on AWS, bearer JWTs on the local stack. The models a new context may choose are in the `urn:panto:a2a:models` extension.',
    responses: { 200: { description: 'The Agent Card (A2A v1.0 JSON).' } },
  },
  a2aJsonRpc: {
    summary: 'A2A v1.0 over JSON-RPC: SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask',
    description:
      'One JSON-RPC 2.0 request (`A2A-Version: 1.0`, or none). A context is one of your sessions (`contextId` = its id; a message without one makes a new session), a task one turn ' +
      '(`id` = `<session id>~<prompt entry id>`). `SendStreamingMessage` and `SubscribeToTask` answer `text/event-stream`, each event a JSON-RPC response; the others, and every refusal, one ' +
      "JSON-RPC response (`application/json`, 200). `SendMessage` is idempotent on `Idempotency-Key`, else on the message's `messageId`. On AWS this route is served by the streaming function URL.",
    responses: { 200: { description: 'A JSON-RPC response, or (for the streaming methods) server-sent events of JSON-RPC responses.' } },
    errors: [413],
  },
  compactSession: {
    summary: 'Summarise the session so its next turn starts from the summary',
    body: compactBody(),
    responses: { 200: { description: 'The summary and what it cost.', schema: responses.compaction } },
    errors: [400, 404, 409, 413, 422, 429, 502],
  },
  exportSession: {
    summary: 'Export the session as JSONL to S3, with a presigned URL',
    body: exportBody(),
    responses: { 200: { description: 'Where the export is, and a URL to fetch it.', schema: responses.sessionExport } },
    errors: [400, 404, 413],
  },
  chat: {
    summary: "A turn for the AI SDK's useChat: its transport's body in, the UI message stream out",
    description:
      "The body `DefaultChatTransport` sends: `id` (the session's id), `messages` (`UIMessage[]`; the server owns the history and reads only the newest: a user message's text is the prompt, an assistant message's `approval-responded` tool parts are the decisions on the calls the session waits on), " +
      '`trigger` (`submit-message`, or `regenerate-message`: the prompt asked again as a sibling, a new branch beside the old answer) and `messageId` (an edited prompt: asked as its sibling). ' +
      "Answers the UI message stream (SSE, `x-vercel-ai-ui-message-stream: v1`): `start`, `start-step`/`finish-step` per provider call, text and reasoning parts, `dynamic-tool` input and output parts, `tool-approval-request` for a call that waits, an `error` part (panto's error body as its text) and `finish` with `usage`, `cost_usd` and `stop_reason` as the message's metadata. " +
      'Refusals before the stream are statuses, as for `POST /sessions/{id}/messages/stream`. A client that goes away does not stop the turn (`POST /sessions/{id}/stop` does). On AWS this route is served by the streaming function URL.',
    body: chatBody(),
    responses: { 200: { description: 'The turn as the UI message stream.', contentType: 'text/event-stream' } },
    errors: [400, 404, 409, 413, 422, 429],
  },
  getChat: {
    summary: "The session as the AI SDK's UIMessage[] (useChat's initial messages)",
    description:
      'The active path: a prompt is a user message (its entry id), what answers it is one assistant message (its first entry id) whose steps, text, reasoning and tool calls are parts. While a turn runs, its answer is left out: `GET /chat/{id}/stream` replays it from its start.',
    responses: { 200: { description: 'The messages, oldest first.', schema: chatMessages } },
    errors: [404],
  },
  resumeChat: {
    summary: "Resume the running turn's UI message stream (useChat's resume)",
    description:
      "What `useChat({ resume: true })` calls on mount. 204 when no turn runs; else the running turn's answer from its start — what it stored, its answer so far, then each write as it lands — as the UI message stream, read from the store (any process answers it). On AWS this route is served by the streaming function URL.",
    responses: {
      200: { description: 'The running turn as the UI message stream.', contentType: 'text/event-stream' },
      204: { description: 'No turn runs.' },
    },
    errors: [404],
  },
};

/** Every route of the manifest with its words, in the manifest's order: what `openapi.ts` documents. */
export const API_ROUTES: readonly ApiRoute[] = ROUTE_LIST.map(({ method, path, operationId, ...line }) => ({
  ...ROUTE_DOCS[operationId],
  method: method.toLowerCase() as ApiRoute['method'],
  path,
  operationId,
  ...('public' in line ? { public: line.public } : {}),
}));
