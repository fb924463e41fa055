import { redactSecrets } from './redact.js';

/** Every error panto throws on purpose derives from this. */
export class PantoError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PantoError';
  }
}

/** What a store knows of a session's head when an append loses a race. */
export interface SessionHead {
  /** The id of the newest entry, when the store could tell. */
  entryId?: string | null;
  /** How many entries the session holds, when the store could tell. */
  entryCount?: number;
}

/**
 * Another handle appended to the session after this one last saw it. Nothing of the
 * rejected batch was written. Reload (`loadConversation`) to catch up, then retry.
 */
export class SessionConflictError extends PantoError {
  readonly sessionId: string;
  readonly expected: SessionHead;
  readonly current: SessionHead;
  constructor(sessionId: string, detail: { expected: SessionHead; current: SessionHead }, options?: ErrorOptions) {
    super(`session ${sessionId} was appended to by another writer since this handle last saw it; nothing was written`, options);
    this.name = 'SessionConflictError';
    this.sessionId = sessionId;
    this.expected = detail.expected;
    this.current = detail.current;
  }
}

/** No such session — or one the caller may not see; the two are deliberately the same. */
export class SessionNotFoundError extends PantoError {
  readonly sessionId: string;
  constructor(sessionId: string, options?: ErrorOptions) {
    super(`session not found: ${sessionId}`, options);
    this.name = 'SessionNotFoundError';
    this.sessionId = sessionId;
  }
}

/** A session id prefix that matches more than one session. */
export class AmbiguousSessionIdError extends PantoError {
  readonly prefix: string;
  readonly candidates: readonly string[];
  constructor(prefix: string, candidates: readonly string[]) {
    super(
      `session id prefix "${prefix}" is ambiguous: it matches ${candidates.length} sessions (${candidates.slice(0, 5).join(', ')}${candidates.length > 5 ? ', …' : ''})`,
    );
    this.name = 'AmbiguousSessionIdError';
    this.prefix = prefix;
    this.candidates = candidates;
  }
}

/** A session id that is not an id: empty, or with a path separator or `..`. */
export class InvalidSessionIdError extends PantoError {
  readonly value: string;
  constructor(value: string, reason: string) {
    super(`invalid session id ${JSON.stringify(value)}: ${reason}`);
    this.name = 'InvalidSessionIdError';
    this.value = value;
  }
}

/**
 * A session log that cannot be read: a line that is not an entry, or entries that do not
 * form a tree. Nothing was changed.
 */
export class SessionCorruptError extends PantoError {
  /** The file, object key or other source the line came from. */
  readonly source: string;
  /** 1-based line number; null when the fault is in how entries relate, not in one line. */
  readonly line: number | null;
  /** What is wrong, without the source and line (`not valid JSON`). */
  readonly reason: string;
  constructor(source: string, line: number | null, reason: string, options?: ErrorOptions) {
    super(line === null ? `${source}: ${reason}` : `${source}:${line}: ${reason}`, options);
    this.name = 'SessionCorruptError';
    this.source = source;
    this.line = line;
    this.reason = reason;
  }
}

/**
 * An entry id the session does not hold, given where an entry of it is needed (a leaf to
 * switch to, an entry to continue from or fork at). Nothing was written.
 */
export class EntryNotFoundError extends PantoError {
  readonly entryId: string;
  constructor(entryId: string, options?: ErrorOptions) {
    super(`no entry ${JSON.stringify(entryId)} in this session`, options);
    this.name = 'EntryNotFoundError';
    this.entryId = entryId;
  }
}

/** A batch a store refused before writing anything (duplicate ids, bad records, too big). */
export class InvalidBatchError extends PantoError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidBatchError';
  }
}

/**
 * Another process held the session file's write lock for longer than the wait allowed.
 * Nothing was written. The lock is the kernel's: it goes away when its holder exits.
 */
export class LockTimeoutError extends PantoError {
  /** The file whose lock could not be taken. */
  readonly file: string;
  readonly timeoutMs: number;
  constructor(file: string, timeoutMs: number) {
    super(
      `could not lock ${file} within ${timeoutMs} ms: another process is writing to this session and still holds its lock. ` +
        `The lock is released the moment that process exits; find it with \`fuser ${file}\` (or \`lsof ${file}\`) and stop it. Nothing was written.`,
    );
    this.name = 'LockTimeoutError';
    this.file = file;
    this.timeoutMs = timeoutMs;
  }
}

/** `compact()` on a conversation with nothing but its system prompt. Nothing was written. */
export class NothingToCompactError extends PantoError {
  constructor() {
    super('nothing to compact: the conversation has no messages besides the system prompt');
    this.name = 'NothingToCompactError';
  }
}

/**
 * A provider that cannot be used as configured: no API key for it (and no base URL of a
 * server that needs none). Found before any request is made; nothing was written.
 */
export class ProviderNotConfiguredError extends PantoError {
  readonly provider: string;
  constructor(provider: string, reason: string) {
    super(`provider ${provider} is not configured: ${reason}`);
    this.name = 'ProviderNotConfiguredError';
    this.provider = provider;
  }
}

/** The agent was asked to do something while it is in the middle of a step. */
export class AgentBusyError extends PantoError {
  constructor(operation: string) {
    super(`agent is busy: ${operation} called while a step or compaction is running`);
    this.name = 'AgentBusyError';
  }
}

/**
 * The conversation ends in tool calls that wait for a person's decision, and `operation` (a
 * prompt, a step, a compaction) cannot go on before they are decided: decide them first
 * (`agent.decideApprovals`). Nothing was written.
 */
export class ApprovalPendingError extends PantoError {
  /** The calls that wait, in the model's order. */
  readonly toolCallIds: readonly string[];
  constructor(operation: string, toolCallIds: readonly string[], options?: ErrorOptions) {
    super(`${operation}: tool call${toolCallIds.length === 1 ? '' : 's'} ${toolCallIds.join(', ')} wait for approval; approve or deny first`, options);
    this.name = 'ApprovalPendingError';
    this.toolCallIds = toolCallIds;
  }
}

/**
 * What is wrong with a set of decisions: nothing waits for one (`none_pending`), a call
 * that does not wait — unknown, or decided already (`not_pending`) —, a call decided twice
 * (`duplicate`), or a waiting call left undecided (`undecided`: every pending call is
 * decided at once).
 */
export type ApprovalDecisionProblem = 'none_pending' | 'not_pending' | 'duplicate' | 'undecided';

/** Decisions that do not answer exactly the calls waiting for one (see {@link ApprovalDecisionProblem}). Nothing was written. */
export class ApprovalDecisionError extends PantoError {
  readonly problem: ApprovalDecisionProblem;
  /** The calls the problem is about. */
  readonly toolCallIds: readonly string[];
  /** The calls that wait for a decision now. */
  readonly pending: readonly string[];
  constructor(problem: ApprovalDecisionProblem, toolCallIds: readonly string[], pending: readonly string[], options?: ErrorOptions) {
    super(approvalProblemMessage(problem, toolCallIds, pending), options);
    this.name = 'ApprovalDecisionError';
    this.problem = problem;
    this.toolCallIds = toolCallIds;
    this.pending = pending;
  }
}

function approvalProblemMessage(problem: ApprovalDecisionProblem, ids: readonly string[], pending: readonly string[]): string {
  const waiting = pending.length === 0 ? 'no tool call waits for approval' : `waiting: ${pending.join(', ')}`;
  switch (problem) {
    case 'none_pending':
      return 'no tool call waits for approval';
    case 'not_pending':
      return `not waiting for approval (unknown, or decided already): ${ids.join(', ')}; ${waiting}`;
    case 'duplicate':
      return `decided more than once: ${ids.join(', ')}`;
    case 'undecided':
      return `every waiting tool call must be decided at once; undecided: ${ids.join(', ')}`;
  }
}

/** A provider call failed: an HTTP error, a broken stream, or an error event. */
export class ProviderError extends PantoError {
  readonly provider: string;
  /** HTTP status, when the failure had one. */
  readonly status: number | undefined;
  /** The provider's own error type (e.g. `rate_limit_error`), when it sent one. */
  readonly type: string | undefined;
  /** Whether retrying the same request later may succeed (429, 5xx, overload, dropped stream). */
  readonly retryable: boolean;
  constructor(provider: string, message: string, detail: { status?: number; type?: string; retryable?: boolean } = {}, options?: ErrorOptions) {
    // The provider's words may quote the credential it was sent: they are stored, relayed and traced.
    super(redactSecrets(message), options);
    this.name = 'ProviderError';
    this.provider = provider;
    this.status = detail.status;
    this.type = detail.type;
    this.retryable = detail.retryable ?? false;
  }
}

/**
 * The model provider refused the call because this account or role may not use the model:
 * on Amazon Bedrock, model access that was never enabled in the region, or a role whose
 * policy does not allow the model. Waiting does not help; a person must act. The provider's
 * own words (which may name the account and role) are the `cause`, not the message.
 */
export class ModelAccessDeniedError extends ProviderError {
  readonly model: string;
  readonly region: string;
  constructor(provider: string, model: string, region: string, detail: { status?: number; type?: string } = {}, options?: ErrorOptions) {
    super(
      provider,
      `model access for ${model} is not enabled in ${region}: enable it in the Bedrock console, or check the role's policy`,
      { ...detail, retryable: false },
      options,
    );
    this.name = 'ModelAccessDeniedError';
    this.model = model;
    this.region = region;
  }
}

/** A provider name that no factory knows. */
export class UnknownProviderError extends PantoError {
  readonly provider: string;
  readonly known: readonly string[];
  constructor(provider: string, known: readonly string[]) {
    super(`unknown provider ${JSON.stringify(provider)}: expected one of ${known.join(', ')}`);
    this.name = 'UnknownProviderError';
    this.provider = provider;
    this.known = known;
  }
}

/** A model its provider does not offer, as far as panto knows: unknown to the catalog, or retired. */
export class UnsupportedModelError extends PantoError {
  readonly provider: string;
  readonly model: string;
  readonly reason: 'unknown' | 'retired';
  /** The provider's models panto knows and that are still served (for `unknown`). */
  readonly known: readonly string[];
  readonly retiredOn: string | undefined;
  readonly replacement: string | undefined;
  constructor(
    provider: string,
    model: string,
    detail: { reason: 'unknown' | 'retired'; known: readonly string[]; retiredOn?: string; replacement?: string },
    options?: ErrorOptions,
  ) {
    super(
      detail.reason === 'retired'
        ? `${provider} retired ${JSON.stringify(model)}${detail.retiredOn ? ` on ${detail.retiredOn}` : ''}${detail.replacement ? `; use ${JSON.stringify(detail.replacement)}` : ''}`
        : `unknown ${provider} model ${JSON.stringify(model)}: expected one of ${detail.known.join(', ')}`,
      options,
    );
    this.name = 'UnsupportedModelError';
    this.provider = provider;
    this.model = model;
    this.reason = detail.reason;
    this.known = detail.known;
    this.retiredOn = detail.retiredOn;
    this.replacement = detail.replacement;
  }
}

/** The step was aborted through its AbortSignal. */
export class AbortedError extends PantoError {
  constructor(message = 'aborted', options?: ErrorOptions) {
    super(message, options);
    this.name = 'AbortedError';
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * An extension used its API wrongly (an invalid tool, a taken name, an unknown event), or
 * could not be loaded. Thrown to the extension while it loads; hosts report it with the
 * extension's file.
 */
export class ExtensionError extends PantoError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ExtensionError';
  }
}
