/**
 * The API's wire types, generated from its OpenAPI document by openapi-typescript:
 * do not edit — run `npm run generate:wire` (scripts/generate-wire-types.ts).
 */
export interface paths {
  '/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Whether the service and its table answer */
    get: operations['getHealth'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** This document */
    get: operations['getOpenAPI'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/models': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The providers and models a session may choose, and the default
     * @description Providers with a key configured here (and `offline`), each with the catalog models that are not retired, `PANTO_EXTRA_MODELS` and its default.
     */
    get: operations['listModels'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Your usage today and this month, your limits, and when the totals reset
     * @description Totals of every turn of yours across all sessions (UTC day and month), as the usage ledger counts them in the same transaction as each turn’s writes.
     */
    get: operations['getUsage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List your sessions, newest first */
    get: operations['listSessions'];
    put?: never;
    /**
     * Create a session
     * @description Without `provider`/`model` the session follows the server default; a model its provider does not offer is a 400 naming `model`.
     */
    post: operations['createSession'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Read a session: its conversation, dangling prompt, model and usage */
    get: operations['getSession'];
    put?: never;
    post?: never;
    /** Delete a session with everything of it */
    delete: operations['deleteSession'];
    options?: never;
    head?: never;
    /**
     * Rename a session, or change the model its next turns use
     * @description A model change is validated as at creation and holds the session like a turn (409 while one runs).
     */
    patch: operations['updateSession'];
    trace?: never;
  };
  '/sessions/{id}/entries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The whole log in order: every branch, leaf entries, and what compactions replaced */
    get: operations['listEntries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/tree': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The session's tree: the active leaf, every leaf with a preview, the branch points */
    get: operations['getTree'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/leaf': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /** Switch the active branch to an entry, sending nothing */
    put: operations['switchLeaf'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/fork': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** A new session holding the path to an entry */
    post: operations['forkSession'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/exports': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The session's exports and archives in S3, with fresh download URLs */
    get: operations['listExports'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/import': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A new session from a JSONL session log (an export) as the body
     * @description Body: `application/x-ndjson`, the export format, within the body limit. The session gets a new id; the header's is `imported_from`. A corrupt line — also one nested deeper than 128 levels, or a timestamp that is not ISO 8601 — is a 400 `invalid_session` naming it, and nothing is created.
     */
    post: operations['importSession'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/stop': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Ask the turn running on the session to stop */
    post: operations['stopTurn'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Follow the running turn: the messages it stores, as server-sent events
     * @description Events: `turn` ({ turn }) first; `message` ({ message }, `id` = the `from` to continue after it) for each message stored from `from` on; `approval` ({ approval }, with an `id` too) for decisions that resumed a paused turn; one `end` ({ entry_count, turn, pending_approvals?, status?, error? }). On AWS this route is served by the streaming function URL.
     */
    get: operations['followSession'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Run one turn
     * @description Stops at the deadline (`PANTO_DEADLINE_MS`) with everything so far stored (`incomplete: true`). A tool call that asks for approval pauses the turn (`stop_reason: "awaiting_approval"`, `pending_approvals`); while calls wait, a prompt is refused with 409 `approval_pending`.
     */
    post: operations['runTurn'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/messages/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Run one turn, streamed as server-sent events
     * @description Events: `message` ({ message }) for each stored message, the prompt first; `text-delta` ({ delta }); one `end` ({ usage, stop_reason, incomplete, incomplete_reason?, pending_approvals?, status?, error? }). On AWS this route is served by the streaming function URL.
     */
    post: operations['streamTurn'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/approvals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Decide the tool calls the session waits on, and resume its turn
     * @description Approve or deny every call in `pending_approvals` at once. The decisions are stored before any approved call runs (a denial becomes an error result the model sees); the turn then goes on as `POST /sessions/{id}/messages` runs one. 409 `approval_not_pending` for a call that does not wait (unknown, or decided already), `approval_undecided` for a waiting call left out, `session_busy` while a turn runs. Stops at the deadline (`PANTO_DEADLINE_MS`) with everything so far stored (`incomplete: true`).
     */
    post: operations['decideApprovals'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/approvals/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Decide the tool calls the session waits on, and stream the resumed turn as server-sent events
     * @description The decisions of `POST /sessions/{id}/approvals`; events as a streamed turn: `approval` ({ approval }) first, `message` ({ message }) for the denials and each message stored after, `text-delta` ({ delta }), one `end` ({ usage, stop_reason, incomplete, incomplete_reason?, pending_approvals?, status?, error? }). On AWS this route is served by the streaming function URL.
     */
    post: operations['streamApprovals'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/compact': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Summarise the session so its next turn starts from the summary */
    post: operations['compactSession'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/sessions/{id}/export': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Export the session as JSONL to S3, with a presigned URL */
    post: operations['exportSession'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/chat': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A turn for the AI SDK's useChat: its transport's body in, the UI message stream out
     * @description The body `DefaultChatTransport` sends: `id` (the session's id), `messages` (`UIMessage[]`; the server owns the history and reads only the newest: a user message's text is the prompt, an assistant message's `approval-responded` tool parts are the decisions on the calls the session waits on), `trigger` (`submit-message`, or `regenerate-message`: the prompt asked again as a sibling, a new branch beside the old answer) and `messageId` (an edited prompt: asked as its sibling). Answers the UI message stream (SSE, `x-vercel-ai-ui-message-stream: v1`): `start`, `start-step`/`finish-step` per provider call, text and reasoning parts, `dynamic-tool` input and output parts, `tool-approval-request` for a call that waits, an `error` part (panto's error body as its text) and `finish` with `usage`, `cost_usd` and `stop_reason` as the message's metadata. Refusals before the stream are statuses, as for `POST /sessions/{id}/messages/stream`. A client that goes away does not stop the turn (`POST /sessions/{id}/stop` does). On AWS this route is served by the streaming function URL.
     */
    post: operations['chat'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/chat/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The session as the AI SDK's UIMessage[] (useChat's initial messages)
     * @description The active path: a prompt is a user message (its entry id), what answers it is one assistant message (its first entry id) whose steps, text, reasoning and tool calls are parts. While a turn runs, its answer is left out: `GET /chat/{id}/stream` replays it from its start.
     */
    get: operations['getChat'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/chat/{id}/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Resume the running turn's UI message stream (useChat's resume)
     * @description What `useChat({ resume: true })` calls on mount. 204 when no turn runs; else the running turn's answer from its start — what it stored, its answer so far, then each write as it lands — as the UI message stream, read from the store (any process answers it). On AWS this route is served by the streaming function URL.
     */
    get: operations['resumeChat'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/.well-known/agent-card.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The A2A Agent Card: who this agent is, its skill and models, its JSON-RPC interface and how to authenticate
     * @description A2A v1.0 (see docs/api.md, *A2A*). `supportedInterfaces[0].url` is the JSON-RPC interface (`POST /a2a`; on AWS the streaming function's); `securitySchemes` the deployment's tokens: its OpenID Connect issuer on AWS, bearer JWTs on the local stack. The models a new context may choose are in the `urn:panto:a2a:models` extension.
     */
    get: operations['getAgentCard'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/a2a': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A2A v1.0 over JSON-RPC: SendMessage, SendStreamingMessage, GetTask, CancelTask, SubscribeToTask
     * @description One JSON-RPC 2.0 request (`A2A-Version: 1.0`, or none). A context is one of your sessions (`contextId` = its id; a message without one makes a new session), a task one turn (`id` = `<session id>~<prompt entry id>`). `SendStreamingMessage` and `SubscribeToTask` answer `text/event-stream`, each event a JSON-RPC response; the others, and every refusal, one JSON-RPC response (`application/json`, 200). `SendMessage` is idempotent on `Idempotency-Key`, else on the message's `messageId`. On AWS this route is served by the streaming function URL.
     */
    post: operations['a2aJsonRpc'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    CreateSessionRequest: {
      system?: string;
      provider?: string;
      model?: string;
    };
    UpdateSessionRequest: {
      title?: string;
      provider?: string;
      model?: string;
    };
    SwitchLeafRequest: {
      entry_id: string;
    };
    StopTurnRequest: Record<string, never>;
    RunTurnRequest: {
      text: string;
      /**
       * @default continue
       * @enum {string}
       */
      on_disconnect?: 'continue' | 'abort';
      parent_id?: string | null;
    };
    DecideApprovalsRequest: {
      decisions: {
        tool_call_id: string;
        /** @enum {string} */
        decision: 'approve' | 'deny';
        reason?: string;
      }[];
      /**
       * @default continue
       * @enum {string}
       */
      on_disconnect?: 'continue' | 'abort';
    };
    CompactSessionRequest: {
      instructions?: string;
      /**
       * @default continue
       * @enum {string}
       */
      on_disconnect?: 'continue' | 'abort';
    };
    ExportSessionRequest: {
      expires_in?: number;
    };
    ChatRequest: {
      id: string;
      messages: ({
        id: string;
        /** @enum {string} */
        role: 'system' | 'user' | 'assistant';
        parts: ({
          type: string;
        } & {
          [key: string]: unknown;
        })[];
      } & {
        [key: string]: unknown;
      })[];
      /** @enum {string} */
      trigger: 'submit-message' | 'regenerate-message';
      messageId?: string;
    };
    Usage: {
      input_tokens: number;
      output_tokens: number;
      cache_read_tokens: number;
      cache_write_tokens: number;
    };
    ActiveModel: {
      provider: string;
      model: string;
    };
    Message:
      | {
          /** @constant */
          role: 'system';
          content: string;
          /** @enum {string} */
          mode: 'replace' | 'append';
        }
      | {
          /** @constant */
          role: 'user';
          content: string;
          provider?: string;
          model?: string;
        }
      | {
          /** @constant */
          role: 'assistant';
          content: (
            | {
                /** @constant */
                type: 'text';
                text: string;
              }
            | {
                /** @constant */
                type: 'thinking';
                thinking: string;
                signature: string;
              }
            | {
                /** @constant */
                type: 'redacted_thinking';
                data: string;
              }
            | {
                /** @constant */
                type: 'tool_call';
                id: string;
                name: string;
                input: {
                  [key: string]: unknown;
                };
              }
          )[];
          provider: string;
          model: string;
          usage: components['schemas']['Usage'];
          /** @enum {string} */
          stop_reason: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'aborted' | 'error' | 'awaiting_approval';
          raw_stop_reason?: string;
          error_message?: string;
          /** @description for stop_reason awaiting_approval: the calls of this message that wait for a decision, and why each asks */
          approval_requests?: {
            tool_call_id: string;
            reason: string;
          }[];
        }
      | {
          /** @constant */
          role: 'tool_result';
          tool_call_id: string;
          tool_name: string;
          content: string;
          is_error: boolean;
          /** @description images the tool returned besides its text (an MCP server's screenshot, say) */
          images?: {
            /** @constant */
            type: 'image';
            media_type: string;
            /** @description base64 */
            data: string;
          }[];
        }
      | {
          /** @constant */
          role: 'compaction';
          summary: string;
          provider: string;
          model: string;
          usage: components['schemas']['Usage'];
          prior_usage: components['schemas']['Usage'];
        };
    StoredMessage:
      | {
          /** @constant */
          role: 'system';
          content: string;
          /** @enum {string} */
          mode: 'replace' | 'append';
          /** @description the id of the message's entry: a parent_id / entry_id for the tree routes */
          id?: string;
          /** @description ISO 8601 UTC timestamp */
          timestamp?: string;
          /** @description why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole */
          unreadable?: string;
          /** @description whether a prompt may follow this entry — its id is a `parent_id` POST /sessions/{id}/messages accepts: an answer that calls no tools, a system message, a compaction; absent when `id` is */
          accepts_prompt?: boolean;
        }
      | {
          /** @constant */
          role: 'user';
          content: string;
          provider?: string;
          model?: string;
          /** @description the id of the message's entry: a parent_id / entry_id for the tree routes */
          id?: string;
          /** @description ISO 8601 UTC timestamp */
          timestamp?: string;
          /** @description why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole */
          unreadable?: string;
          /** @description whether a prompt may follow this entry — its id is a `parent_id` POST /sessions/{id}/messages accepts: an answer that calls no tools, a system message, a compaction; absent when `id` is */
          accepts_prompt?: boolean;
        }
      | {
          /** @constant */
          role: 'assistant';
          content: (
            | {
                /** @constant */
                type: 'text';
                text: string;
              }
            | {
                /** @constant */
                type: 'thinking';
                thinking: string;
                signature: string;
              }
            | {
                /** @constant */
                type: 'redacted_thinking';
                data: string;
              }
            | {
                /** @constant */
                type: 'tool_call';
                id: string;
                name: string;
                input: {
                  [key: string]: unknown;
                };
              }
          )[];
          provider: string;
          model: string;
          usage: components['schemas']['Usage'];
          /** @enum {string} */
          stop_reason: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'aborted' | 'error' | 'awaiting_approval';
          raw_stop_reason?: string;
          error_message?: string;
          /** @description for stop_reason awaiting_approval: the calls of this message that wait for a decision, and why each asks */
          approval_requests?: {
            tool_call_id: string;
            reason: string;
          }[];
          /** @description the id of the message's entry: a parent_id / entry_id for the tree routes */
          id?: string;
          /** @description ISO 8601 UTC timestamp */
          timestamp?: string;
          /** @description why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole */
          unreadable?: string;
          /** @description whether a prompt may follow this entry — its id is a `parent_id` POST /sessions/{id}/messages accepts: an answer that calls no tools, a system message, a compaction; absent when `id` is */
          accepts_prompt?: boolean;
        }
      | {
          /** @constant */
          role: 'tool_result';
          tool_call_id: string;
          tool_name: string;
          content: string;
          is_error: boolean;
          /** @description images the tool returned besides its text (an MCP server's screenshot, say) */
          images?: {
            /** @constant */
            type: 'image';
            media_type: string;
            /** @description base64 */
            data: string;
          }[];
          /** @description the id of the message's entry: a parent_id / entry_id for the tree routes */
          id?: string;
          /** @description ISO 8601 UTC timestamp */
          timestamp?: string;
          /** @description why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole */
          unreadable?: string;
          /** @description whether a prompt may follow this entry — its id is a `parent_id` POST /sessions/{id}/messages accepts: an answer that calls no tools, a system message, a compaction; absent when `id` is */
          accepts_prompt?: boolean;
        }
      | {
          /** @constant */
          role: 'compaction';
          summary: string;
          provider: string;
          model: string;
          usage: components['schemas']['Usage'];
          prior_usage: components['schemas']['Usage'];
          /** @description the id of the message's entry: a parent_id / entry_id for the tree routes */
          id?: string;
          /** @description ISO 8601 UTC timestamp */
          timestamp?: string;
          /** @description why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole */
          unreadable?: string;
          /** @description whether a prompt may follow this entry — its id is a `parent_id` POST /sessions/{id}/messages accepts: an answer that calls no tools, a system message, a compaction; absent when `id` is */
          accepts_prompt?: boolean;
        };
    Entry:
      | {
          /** @constant */
          type: 'message';
          id: string;
          parent_id: string | null;
          /** @description ISO 8601 UTC timestamp */
          timestamp: string;
          /** @description why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole */
          unreadable?: string;
          message: components['schemas']['Message'];
        }
      | {
          /** @constant */
          type: 'compaction';
          id: string;
          parent_id: string | null;
          /** @description ISO 8601 UTC timestamp */
          timestamp: string;
          /** @description why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole */
          unreadable?: string;
          summary: string;
          provider: string;
          model: string;
          usage: components['schemas']['Usage'];
          prior_usage: components['schemas']['Usage'];
        }
      | {
          /** @constant */
          type: 'leaf';
          id: string;
          parent_id: string | null;
          /** @description ISO 8601 UTC timestamp */
          timestamp: string;
          /** @description why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole */
          unreadable?: string;
        }
      | {
          /** @constant */
          type: 'approval';
          id: string;
          parent_id: string | null;
          /** @description ISO 8601 UTC timestamp */
          timestamp: string;
          /** @description why part of the entry could not be loaded (a tool call input nested deeper than 128 levels is shown as {}); absent for an entry loaded whole */
          unreadable?: string;
          decisions: components['schemas']['ApprovalDecision'][];
        };
    EntriesPage: {
      entries: components['schemas']['Entry'][];
      next_cursor: string | null;
    };
    SessionTree: {
      active_leaf: string | null;
      leaves: {
        id: string;
        /** @description ISO 8601 UTC timestamp */
        timestamp: string;
        preview: string;
        /** @description a prompt nothing follows: its turn failed (or was cut) before the model answered; the next prompt is its sibling (active, it is the session’s `dangling_user`) */
        unanswered: boolean;
      }[];
      branch_points: string[];
      /** @description every model call of the session, on every branch: each answer's usage and each compaction's own call — what the session has used so far */
      usage: components['schemas']['Usage'];
    };
    RunningTurn: {
      /** @constant */
      running: true;
      started_at: string | null;
      stop_requested: boolean;
      partial: components['schemas']['PartialAnswer'] | null;
    };
    PartialAnswer: {
      message: {
        /** @constant */
        role: 'assistant';
        content: (
          | {
              /** @constant */
              type: 'text';
              text: string;
            }
          | {
              /** @constant */
              type: 'thinking';
              thinking: string;
              signature: string;
            }
          | {
              /** @constant */
              type: 'redacted_thinking';
              data: string;
            }
          | {
              /** @constant */
              type: 'tool_call';
              id: string;
              name: string;
              input: {
                [key: string]: unknown;
              };
            }
        )[];
        provider: string;
        model: string;
        usage: components['schemas']['Usage'];
      };
      /** @description ISO 8601 UTC timestamp */
      updated_at: string;
    };
    StoppedTurn: {
      turn: components['schemas']['RunningTurn'];
    };
    PendingApproval: {
      /** @description the `id` of the tool_call block; what a decision names */
      tool_call_id: string;
      /** @description the tool, as the model called it (`mcp__<server>__<tool>`) */
      tool: string;
      /** @description the input the model gave it */
      input: {
        [key: string]: unknown;
      };
      /** @description why this call asks for approval */
      reason: string;
    };
    ApprovalDecision: {
      tool_call_id: string;
      /** @enum {string} */
      decision: 'approve' | 'deny';
      reason?: string;
    };
    ApprovalEntry: {
      id: string;
      /** @description ISO 8601 UTC timestamp */
      timestamp: string;
      decisions: components['schemas']['ApprovalDecision'][];
    };
    Error: {
      error: components['schemas']['ErrorDetail'];
    };
    ErrorDetail: {
      /** @description stable, machine-readable: invalid_body, unauthorized, session_not_found, … */
      code: string;
      message: string;
      /** @description for invalid_body / invalid_query: the offending field, dotted */
      field?: string;
      /** @description for invalid_session: the 1-based line of the body that is not a session log line */
      line?: number;
    };
    SessionSummary: {
      id: string;
      /** @description ISO 8601 UTC timestamp */
      created_at: string;
      /** @description ISO 8601 UTC timestamp */
      updated_at: string;
      active_model: components['schemas']['ActiveModel'];
      title: string | null;
      entry_count: number;
      /** @description in S3 (cold): opening it brings it back */
      archived: boolean;
    };
    ImportedSession: {
      id: string;
      /** @description ISO 8601 UTC timestamp */
      created_at: string;
      /** @description ISO 8601 UTC timestamp */
      updated_at: string;
      active_model: components['schemas']['ActiveModel'];
      title: string | null;
      entry_count: number;
      /** @description in S3 (cold): opening it brings it back */
      archived: boolean;
      /** @description the session id in the imported log's header; the new session always has a new id */
      imported_from: string;
    };
    SessionList: {
      sessions: components['schemas']['SessionSummary'][];
      next_cursor: string | null;
    };
    SessionContents: {
      id: string;
      messages: components['schemas']['StoredMessage'][];
      dangling_user: string | null;
      active_model: components['schemas']['ActiveModel'];
      usage: components['schemas']['Usage'];
      /** @description the conversation's prompts, in order, each with what answering it used */
      turns: {
        /** @description the `id` of the prompt in `messages` */
        prompt_id: string;
        /** @description what the model calls that answered it used, summed: its turn */
        usage: components['schemas']['Usage'];
      }[];
      /** @description log entries this answer reflects: `from` for GET /sessions/{id}/events */
      entry_count: number;
      turn: components['schemas']['RunningTurn'] | null;
      /** @description the tool calls the session waits on, in the order the model made them */
      pending_approvals: components['schemas']['PendingApproval'][];
    };
    Turn: {
      messages: components['schemas']['StoredMessage'][];
      usage: components['schemas']['Usage'];
      /** @enum {string} */
      stop_reason: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'aborted' | 'error' | 'awaiting_approval';
      incomplete: boolean;
      /** @enum {string} */
      incomplete_reason?: 'deadline' | 'cancelled' | 'stopped' | 'provider_error' | 'max_provider_calls' | 'budget';
      /** @description for stop_reason awaiting_approval: the calls the turn paused on */
      pending_approvals?: components['schemas']['PendingApproval'][];
      /** @description for a turn resumed by decisions: the entry that stored them */
      approval?: components['schemas']['ApprovalEntry'];
    };
    FailedTurn: {
      messages: components['schemas']['StoredMessage'][];
      usage: components['schemas']['Usage'];
      /** @enum {string} */
      stop_reason: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'aborted' | 'error' | 'awaiting_approval';
      incomplete: boolean;
      /** @enum {string} */
      incomplete_reason?: 'deadline' | 'cancelled' | 'stopped' | 'provider_error' | 'max_provider_calls' | 'budget';
      /** @description for stop_reason awaiting_approval: the calls the turn paused on */
      pending_approvals?: components['schemas']['PendingApproval'][];
      /** @description for a turn resumed by decisions: the entry that stored them */
      approval?: components['schemas']['ApprovalEntry'];
      error: components['schemas']['ErrorDetail'];
    };
    TurnOrError: components['schemas']['FailedTurn'] | components['schemas']['Error'];
    Compaction: {
      summary: string;
      usage: components['schemas']['Usage'];
    };
    SessionExport: {
      bucket: string;
      key: string;
      /** @description presigned GET URL of the JSONL, valid for expires_in seconds */
      url: string;
      bytes: number;
      entries: number;
      expires_in: number;
    };
    ExportList: {
      exports: {
        /** @enum {string} */
        kind: 'export' | 'archive';
        key: string;
        /** @description ISO 8601 UTC timestamp */
        created_at: string;
        bytes: number;
        entries: number | null;
        storage_class: string;
        /** @description presigned GET URL, valid for expires_in seconds */
        url: string;
      }[];
      expires_in: number;
    };
    Health: {
      /** @enum {string} */
      status: 'ok' | 'degraded';
      version: string;
      /**
       * @description whether the DynamoDB table answered a read just now
       * @enum {string}
       */
      table: 'ok' | 'unavailable';
    };
    Models: {
      /** @description what a session uses when it names no provider or model */
      default: components['schemas']['ActiveModel'];
      providers: {
        name: string;
        /** @description the model a session of this provider uses when it names none */
        default_model: string;
        models: {
          id: string;
          /** @description null: not in the catalog (an extra model) */
          status: ('active' | 'legacy' | 'deprecated' | 'retired') | null;
        }[];
        /** @description the provider has a base URL on this server: any model name is accepted */
        any_model: boolean;
      }[];
    };
    UsageReport: {
      /** @description this UTC day */
      today: components['schemas']['UsageTotals'];
      /** @description this UTC month */
      month: components['schemas']['UsageTotals'];
      limits: {
        /** @description the daily spend budget in US dollars; null: none */
        daily_usd: number | null;
        /** @description the monthly spend budget in US dollars; null: none */
        monthly_usd: number | null;
        /** @description turns that may start in a UTC minute; null: none */
        turns_per_minute: number | null;
        /** @description turns that may run at once, across all your sessions; null: none */
        concurrent_turns: number | null;
      };
      resets: {
        /** @description when today’s totals start again (the next UTC midnight) */
        day: string;
        /** @description when this month’s totals start again */
        month: string;
      };
    };
    UsageTotals: {
      /** @description US dollars at the catalog prices of the turns whose model has a known price */
      usd: number;
      input_tokens: number;
      output_tokens: number;
      cache_read_tokens: number;
      cache_write_tokens: number;
      turns: number;
      /** @description turns whose model has no known price: their tokens are counted, their dollars are not in usd */
      usd_unknown_turns: number;
      /** @description US dollars held by your turns in flight (what their next provider call can cost at most), not in usd; a budget counts them */
      reserved_usd: number;
    };
    GetChatResponse200: {
      id: string;
      /** @enum {string} */
      role: 'system' | 'user' | 'assistant';
      metadata?: {
        session_id?: string;
        usage?: components['schemas']['Usage'];
        cost_usd?: number | null;
        stop_reason?: string;
        incomplete?: boolean;
        incomplete_reason?: string;
      };
      parts: (
        | {
            /** @constant */
            type: 'text';
            text: string;
            /** @enum {string} */
            state?: 'streaming' | 'done';
          }
        | {
            /** @constant */
            type: 'reasoning';
            text: string;
            /** @enum {string} */
            state?: 'streaming' | 'done';
          }
        | {
            /** @constant */
            type: 'step-start';
          }
        | {
            /** @constant */
            type: 'dynamic-tool';
            toolName: string;
            toolCallId: string;
            /** @enum {string} */
            state: 'input-available' | 'approval-requested' | 'approval-responded' | 'output-available' | 'output-error' | 'output-denied';
            input: unknown;
            output?: unknown;
            errorText?: string;
            approval?: {
              id: string;
              approved?: boolean;
              reason?: string;
            };
          }
      )[];
    }[];
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  getHealth: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The service and its table answer. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
      /** @description The table did not answer. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getOpenAPI: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The OpenAPI 3.1 document of this API. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listModels: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description What `POST /sessions` accepts as `provider` and `model`. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Models'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getUsage: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Your totals, limits and resets. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UsageReport'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listSessions: {
    parameters: {
      query?: {
        limit?: string;
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of sessions. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionList'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createSession: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: the same key with the same body answers the first response again and writes nothing; with another body, 422; while the first is still running, 409. Keys expire after 24 hours (PANTO_IDEMPOTENCY_TTL_HOURS). */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['CreateSessionRequest'];
      };
    };
    responses: {
      /** @description The new session. */
      201: {
        headers: {
          /** @description `true` when this is the stored answer to an earlier request with the same key. */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionSummary'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The provider has no key on this server (`provider_not_configured`), the model may not be called by this deployment (`model_access_denied`: enable model access in the Bedrock console, or check the role's policy), the model has no known price while a dollar budget applies to you (`model_price_unknown`, nothing stored), or the Idempotency-Key was used with another request (`idempotency_key_reused`). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getSession: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The session. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionContents'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteSession: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted (also when an earlier delete had begun). */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateSession: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['UpdateSessionRequest'];
      };
    };
    responses: {
      /** @description The session as listed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionSummary'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The provider has no key on this server (`provider_not_configured`), the model may not be called by this deployment (`model_access_denied`: enable model access in the Bedrock console, or check the role's policy), the model has no known price while a dollar budget applies to you (`model_price_unknown`, nothing stored), or the Idempotency-Key was used with another request (`idempotency_key_reused`). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listEntries: {
    parameters: {
      query?: {
        limit?: string;
        cursor?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of entries. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EntriesPage'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getTree: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The tree. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionTree'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  switchLeaf: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['SwitchLeafRequest'];
      };
    };
    responses: {
      /** @description The session as it now reads. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionContents'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  forkSession: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['SwitchLeafRequest'];
      };
    };
    responses: {
      /** @description The new session. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionSummary'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listExports: {
    parameters: {
      query?: {
        expires_in?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Newest first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ExportList'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  importSession: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** @description A session log in the export format (docs/session-format.md): a header line, then one entry per line. */
    requestBody: {
      content: {
        'application/x-ndjson': string;
      };
    };
    responses: {
      /** @description The new session. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ImportedSession'];
        };
      };
      /** @description The body is not a session log: a line that is not JSON, not UTF-8 or not an entry (`invalid_session`, naming the `line`); nothing is created. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  stopTurn: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['StopTurnRequest'];
      };
    };
    responses: {
      /** @description The running turn was asked to stop. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StoppedTurn'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  followSession: {
    parameters: {
      query?: {
        from?: string;
      };
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The followed turn as server-sent events. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  runTurn: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: the same key with the same body answers the first response again and writes nothing; with another body, 422; while the first is still running, 409. Keys expire after 24 hours (PANTO_IDEMPOTENCY_TTL_HOURS). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['RunTurnRequest'];
      };
    };
    responses: {
      /** @description The messages the turn added, its usage and stop reason. */
      200: {
        headers: {
          /** @description `true` when this is the stored answer to an earlier request with the same key. */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Turn'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Refused before the turn (`provider_not_configured`, `model_price_unknown`, `idempotency_key_reused`), or the turn stopped because this deployment may not call the model (`model_access_denied`): what the turn stored, and the error. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TurnOrError'];
        };
      };
      /** @description Over one of your limits, nothing stored: the spend budget (`budget_exceeded`) or the turns per minute or at once (`rate_limited`); `Retry-After` says when to try again. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The provider failed; what the turn stored, and the error. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['FailedTurn'];
        };
      };
      /** @description The provider kept throttling or was down after retries (`provider_unavailable`, with Retry-After): what the turn stored, and the error — or the store is unavailable (`unavailable`, `service_unavailable`). */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TurnOrError'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  streamTurn: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['RunTurnRequest'];
      };
    };
    responses: {
      /** @description The turn as server-sent events. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The provider has no key on this server (`provider_not_configured`), the model may not be called by this deployment (`model_access_denied`: enable model access in the Bedrock console, or check the role's policy), the model has no known price while a dollar budget applies to you (`model_price_unknown`, nothing stored), or the Idempotency-Key was used with another request (`idempotency_key_reused`). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Over one of your limits, nothing stored: the spend budget (`budget_exceeded`) or the turns per minute or at once (`rate_limited`); `Retry-After` says when to try again. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  decideApprovals: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes a retry safe: the same key with the same body answers the first response again and writes nothing; with another body, 422; while the first is still running, 409. Keys expire after 24 hours (PANTO_IDEMPOTENCY_TTL_HOURS). */
        'Idempotency-Key'?: string;
      };
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['DecideApprovalsRequest'];
      };
    };
    responses: {
      /** @description The messages the resumed turn added (the denials first), its usage and stop reason, and the decisions as stored. */
      200: {
        headers: {
          /** @description `true` when this is the stored answer to an earlier request with the same key. */
          'Idempotent-Replayed'?: 'true';
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Turn'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description As for `POST /sessions/{id}/messages`. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TurnOrError'];
        };
      };
      /** @description Over one of your limits, nothing stored: the spend budget (`budget_exceeded`) or the turns per minute or at once (`rate_limited`); `Retry-After` says when to try again. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The provider failed; what the turn stored, and the error. */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['FailedTurn'];
        };
      };
      /** @description As for `POST /sessions/{id}/messages`. */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TurnOrError'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  streamApprovals: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['DecideApprovalsRequest'];
      };
    };
    responses: {
      /** @description The resumed turn as server-sent events. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The provider has no key on this server (`provider_not_configured`), the model may not be called by this deployment (`model_access_denied`: enable model access in the Bedrock console, or check the role's policy), the model has no known price while a dollar budget applies to you (`model_price_unknown`, nothing stored), or the Idempotency-Key was used with another request (`idempotency_key_reused`). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Over one of your limits, nothing stored: the spend budget (`budget_exceeded`) or the turns per minute or at once (`rate_limited`); `Retry-After` says when to try again. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  compactSession: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['CompactSessionRequest'];
      };
    };
    responses: {
      /** @description The summary and what it cost. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Compaction'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The provider has no key on this server (`provider_not_configured`), the model may not be called by this deployment (`model_access_denied`: enable model access in the Bedrock console, or check the role's policy), the model has no known price while a dollar budget applies to you (`model_price_unknown`, nothing stored), or the Idempotency-Key was used with another request (`idempotency_key_reused`). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Over one of your limits, nothing stored: the spend budget (`budget_exceeded`) or the turns per minute or at once (`rate_limited`); `Retry-After` says when to try again. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The model provider failed (`provider_error`). */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  exportSession: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['ExportSessionRequest'];
      };
    };
    responses: {
      /** @description Where the export is, and a URL to fetch it. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionExport'];
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  chat: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['ChatRequest'];
      };
    };
    responses: {
      /** @description The turn as the UI message stream. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field. */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`). */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The provider has no key on this server (`provider_not_configured`), the model may not be called by this deployment (`model_access_denied`: enable model access in the Bedrock console, or check the role's policy), the model has no known price while a dollar budget applies to you (`model_price_unknown`, nothing stored), or the Idempotency-Key was used with another request (`idempotency_key_reused`). */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Over one of your limits, nothing stored: the spend budget (`budget_exceeded`) or the turns per minute or at once (`rate_limited`); `Retry-After` says when to try again. */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getChat: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The messages, oldest first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GetChatResponse200'];
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  resumeChat: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The running turn as the UI message stream. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      /** @description No turn runs. */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such session, or not yours (`session_not_found`). */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAgentCard: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Agent Card (A2A v1.0 JSON). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  a2aJsonRpc: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A JSON-RPC response, or (for the streaming methods) server-sent events of JSON-RPC responses. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': Record<string, never>;
        };
      };
      /** @description No valid bearer token (`unauthorized`). */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is over the limit (`payload_too_large`). */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After). */
      default: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}
