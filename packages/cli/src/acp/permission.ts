/**
 * panto's approvals as ACP permission requests: the choices the terminal offers — allow once,
 * allow calls like this for the session, deny — become the options of a
 * `session/request_permission`, and the option the user picked becomes the answer. Anything
 * else (a cancelled request, an option panto did not offer, a client that fails) denies: a
 * call runs only on a clear yes.
 */
import type { PermissionOption, RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { ToolCallBlock } from '@panto/core';
import type { ApprovalAnswer, ApprovalRequest, AskApproval } from '../agent/approvals.js';

/** The ids of the options panto offers. */
export const PERMISSION_OPTION_IDS = { once: 'allow_once', session: 'allow_session', deny: 'deny' } as const;

/** The options of a request: the terminal's `[y] allow once  [a] allow … for this session  [n] deny`. */
export function permissionOptions(request: ApprovalRequest): PermissionOption[] {
  return [
    { optionId: PERMISSION_OPTION_IDS.once, name: 'Allow once', kind: 'allow_once' },
    { optionId: PERMISSION_OPTION_IDS.session, name: `Allow ${request.kind} for this session`, kind: 'allow_always' },
    { optionId: PERMISSION_OPTION_IDS.deny, name: 'Deny', kind: 'reject_once' },
  ];
}

/** The answer an outcome gives: only an option panto offered allows. */
export function answerOf(outcome: RequestPermissionOutcome): ApprovalAnswer {
  if (outcome.outcome === 'cancelled') return { type: 'deny', reason: 'the prompt was cancelled' };
  switch (outcome.optionId) {
    case PERMISSION_OPTION_IDS.once:
      return { type: 'once' };
    case PERMISSION_OPTION_IDS.session:
      return { type: 'session' };
    case PERMISSION_OPTION_IDS.deny:
      return { type: 'deny' };
    default:
      return { type: 'deny', reason: `the client answered with an option panto did not offer (${JSON.stringify(outcome.optionId).slice(0, 80)})` };
  }
}

/** Sends a permission request to the client; `signal` withdraws it. */
export type RequestPermission = (params: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>;

export interface ClientApprovalOptions {
  /** The session the requests are about (known once it started). */
  sessionId: () => string;
  request: RequestPermission;
  /** The call as the client shows it: title, kind, locations, diff. */
  describe: (call: ToolCallBlock) => Promise<ToolCallUpdate>;
  log: (line: string) => void;
}

/**
 * An `AskApproval` that asks the ACP client. Resolves `deny` at once when the step is aborted
 * (the pending request is withdrawn), and when the client fails to answer.
 *
 * @example
 * const ask = clientApproval({ sessionId: () => id, request: (params, signal) => client.request('session/request_permission', params, { cancellationSignal: signal }), describe, log });
 */
export function clientApproval(options: ClientApprovalOptions): AskApproval {
  return async (call, signal, request) => {
    const cancelled: ApprovalAnswer = { type: 'deny', reason: 'the prompt was cancelled' };
    if (signal.aborted) return cancelled;
    const shown = await options.describe(call);
    const needs = request.needs.length > 0 ? ` (needs ${request.needs.join(' and ')}, beyond the sandbox)` : '';
    const params: RequestPermissionRequest = {
      sessionId: options.sessionId(),
      toolCall: { ...shown, title: `${shown.title ?? call.name}${needs}` },
      options: permissionOptions(request),
    };
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<ApprovalAnswer>((resolve) => {
      onAbort = () => resolve(cancelled);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    const asked = options.request(params, signal).then(
      (response) => answerOf(response.outcome),
      (error: unknown): ApprovalAnswer => {
        options.log(
          `panto: the ACP client did not answer a permission request, so the call is denied: ${error instanceof Error ? error.message : String(error)}`,
        );
        return { type: 'deny', reason: 'the editor could not be asked' };
      },
    );
    try {
      return await Promise.race([asked, aborted]);
    } finally {
      if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    }
  };
}
