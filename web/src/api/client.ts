/**
 * The HTTP API as the page uses it (docs/api.md), each call by its route's name: the method and
 * path come from the server's route manifest (./routes.gen.ts), and so does the origin — JSON
 * routes on `apiUrl`, the routes that stream (a streamed turn, following one) on `streamUrl`.
 * What it sends and answers is typed by the server's OpenAPI document (`GET /openapi.json`),
 * through ./wire.ts.
 */
import { ROUTES, type OperationId } from './routes.gen.js';
import { readSSE } from './sse.js';
import type {
  ActiveModel,
  Compaction,
  CreateSessionRequest,
  EntriesPage,
  ErrorAnswer,
  Models,
  RunTurnRequest,
  SessionContents,
  SessionExport,
  SessionList,
  SessionSummary,
  SessionTree,
  StoredMessage,
  TurnEnd,
  TurnEvent,
  UpdateSessionRequest,
  UsageReport,
} from './wire.js';

/** An error answer of the API: its status and stable `code`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiOptions {
  apiUrl: string;
  streamUrl: string;
  token: string;
  /** Called on a 401: the token expired or was revoked. Must not throw. */
  onUnauthorized?: () => void;
}

export class Api {
  constructor(private readonly options: ApiOptions) {}

  /**
   * A request to the route named `operation`, with the session `id` in its path, `query` after
   * it, and the bearer token; an error answer rejects as {@link ApiError}.
   */
  private async request(
    operation: OperationId,
    { id, query, body, signal }: { id?: string; query?: URLSearchParams; body?: unknown; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const { method, path, streamed } = ROUTES[operation];
    const filled = path.replace('{id}', encodeURIComponent(id ?? ''));
    const url = `${streamed ? this.options.streamUrl : this.options.apiUrl}${filled}${query ? `?${query.toString()}` : ''}`;
    const response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${this.options.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (!response.ok) throw await this.failure(response);
    return response;
  }

  private async failure(response: Response): Promise<ApiError> {
    if (response.status === 401) this.options.onUnauthorized?.();
    // An unreadable body leaves the status to speak for itself (the generic error below).
    const text = await response.text().catch(() => '');
    try {
      const { error } = JSON.parse(text) as ErrorAnswer;
      return new ApiError(response.status, error.code, error.message);
    } catch {
      return new ApiError(response.status, 'http_error', `The server answered ${response.status}.`);
    }
  }

  private async json<T>(operation: OperationId, options: { id?: string; query?: URLSearchParams; body?: unknown } = {}): Promise<T> {
    const response = await this.request(operation, options);
    return response.status === 204 ? (undefined as T) : ((await response.json()) as T);
  }

  models(): Promise<Models> {
    return this.json('listModels');
  }

  /** Your spend and tokens today and this month, across all your sessions, and your limits. */
  usage(): Promise<UsageReport> {
    return this.json('getUsage');
  }

  listSessions(cursor?: string | null, limit = 20): Promise<SessionList> {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    return this.json('listSessions', { query });
  }

  createSession(body: CreateSessionRequest): Promise<SessionSummary> {
    return this.json('createSession', { body });
  }

  session(id: string): Promise<SessionContents> {
    return this.json('getSession', { id });
  }

  rename(id: string, title: string): Promise<SessionSummary> {
    return this.json('updateSession', { id, body: { title } satisfies UpdateSessionRequest });
  }

  /** The model of the session's next turns (409 `session_busy` while a turn runs). */
  setModel(id: string, { provider, model }: ActiveModel): Promise<SessionSummary> {
    return this.json('updateSession', { id, body: { provider, model } satisfies UpdateSessionRequest });
  }

  tree(id: string): Promise<SessionTree> {
    return this.json('getTree', { id });
  }

  /** A page of the whole log, in log order: the entries after `cursor` (an entry id), or from the first. */
  entries(id: string, cursor: string | null, limit = 500): Promise<EntriesPage> {
    const query = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    return this.json('listEntries', { id, query });
  }

  /** Makes `entryId` the entry the session continues from; answers the session as it now reads. */
  switchLeaf(id: string, entryId: string): Promise<SessionContents> {
    return this.json('switchLeaf', { id, body: { entry_id: entryId } });
  }

  /** A new session holding the path to `entryId`. */
  fork(id: string, entryId: string): Promise<SessionSummary> {
    return this.json('forkSession', { id, body: { entry_id: entryId } });
  }

  deleteSession(id: string): Promise<void> {
    return this.json('deleteSession', { id });
  }

  exportSession(id: string): Promise<SessionExport> {
    return this.json('exportSession', { id, body: {} });
  }

  compact(id: string): Promise<Compaction> {
    return this.json('compactSession', { id, body: {} });
  }

  /** Asks the running turn to stop (202); false when none runs (409 `turn_not_running`). */
  async stop(id: string): Promise<boolean> {
    try {
      await this.json('stopTurn', { id, body: {} });
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'turn_not_running') return false;
      throw error;
    }
  }

  /**
   * Runs one turn on the streaming route and yields its events as they arrive. Errors found
   * before the stream starts (409 `session_busy`, 404, …) reject as {@link ApiError}. With
   * `parentId` (an entry id, or null for the root) the prompt starts a new branch there.
   */
  async *streamTurn(id: string, text: string, signal: AbortSignal, parentId?: string | null): AsyncGenerator<TurnEvent> {
    const body: RunTurnRequest = { text, ...(parentId === undefined ? {} : { parent_id: parentId }) };
    const response = await this.request('streamTurn', { id, body, signal });
    yield* this.events(response, signal);
  }

  /** Follows a turn running on the session (from another tab, or before a reload) until it ends. */
  async *follow(id: string, from: number, signal: AbortSignal): AsyncGenerator<TurnEvent> {
    const response = await this.request('followSession', { id, query: new URLSearchParams({ from: String(from) }), signal });
    yield* this.events(response, signal);
  }

  private async *events(response: Response, signal: AbortSignal): AsyncGenerator<TurnEvent> {
    if (response.body === null) return;
    for await (const event of readSSE(response.body, signal)) {
      const data = JSON.parse(event.data) as { delta?: string; message?: StoredMessage } & TurnEnd;
      if (event.event === 'text-delta' && typeof data.delta === 'string') yield { type: 'text-delta', delta: data.delta };
      else if (event.event === 'partial' && data.message?.role === 'assistant') yield { type: 'partial', message: data.message };
      else if (event.event === 'message' && data.message) yield { type: 'message', message: data.message };
      else if (event.event === 'end') {
        yield { type: 'end', end: data };
        return;
      }
    }
  }
}
