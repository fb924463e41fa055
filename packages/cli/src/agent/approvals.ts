/**
 * The approval policy for tool calls: `read` never asks; `bash`, `write` and `edit` ask the
 * user first in interactive mode (allow once / allow for this session / deny with a reason
 * the model sees); `--yolo` runs them without asking; where nobody can be asked (`-p`, piped
 * input) they are refused with an error result that says how to allow them.
 */
import type { BeforeToolCall, ToolCallBlock, ToolCallDecision, ToolContext } from '@panto/core';

/** The tools that change files or run commands, and so ask first. */
export const ASKING_TOOLS: readonly string[] = ['bash', 'write', 'edit'];

/** What the user answered to "may this tool call run?". */
export type ApprovalAnswer =
  | { type: 'once' }
  /** Allow this tool (by name) for the rest of the session, without asking again. */
  | { type: 'session' }
  | { type: 'deny'; reason?: string };

/**
 * Asks the user about one call. Contract: resolves once, never rejects for a user's answer;
 * resolves `deny` when `signal` aborts.
 */
export type AskApproval = (call: ToolCallBlock, signal: AbortSignal) => Promise<ApprovalAnswer>;

/** How calls of asking tools are decided. */
export type ApprovalMode =
  /** `--yolo`: run them. */
  | { type: 'yolo' }
  /** Interactive: ask the user. */
  | { type: 'ask'; ask: AskApproval }
  /** Nobody to ask: refuse them; `where` names the situation ("panto -p"). */
  | { type: 'refuse'; where: string };

/**
 * The CLI's `beforeToolCall` for the policy: a hook the agent consults before each call.
 *
 * @example
 * const approvals = new Approvals({ type: 'refuse', where: 'panto -p' });
 * const agent = new Agent({ provider, beforeToolCall: approvals.beforeToolCall });
 */
export class Approvals {
  readonly #mode: ApprovalMode;
  /** Tools allowed for the rest of the session. */
  readonly #allowed = new Set<string>();

  constructor(mode: ApprovalMode) {
    this.#mode = mode;
  }

  /** Whether a call of `tool` would ask (or be refused) now. */
  asks(tool: string): boolean {
    return this.#mode.type !== 'yolo' && ASKING_TOOLS.includes(tool) && !this.#allowed.has(tool);
  }

  readonly beforeToolCall: BeforeToolCall = async (call: ToolCallBlock, context: ToolContext): Promise<ToolCallDecision | undefined> => {
    if (!this.asks(call.name)) return undefined;
    const mode = this.#mode;
    switch (mode.type) {
      case 'yolo':
        return undefined;
      case 'refuse':
        return { type: 'refuse', reason: refusalReason(call.name, mode.where) };
      case 'ask': {
        const answer = await mode.ask(call, context.signal);
        switch (answer.type) {
          case 'once':
            return { type: 'allow' };
          case 'session':
            this.#allowed.add(call.name);
            return { type: 'allow' };
          case 'deny':
            return { type: 'refuse', reason: `the user denied it${answer.reason ? `: ${answer.reason}` : ''}` };
          default: {
            const unexpected: never = answer;
            return unexpected;
          }
        }
      }
      default: {
        const unexpected: never = mode;
        return unexpected;
      }
    }
  };
}

/** The error a refused call gets where nobody can be asked: it says how to allow it. */
export function refusalReason(tool: string, where: string): string {
  return (
    `${tool} needs the user's approval, and ${where} cannot ask for it. ` +
    'To allow bash, write and edit without asking, run panto again with --yolo (or run it interactively to be asked).'
  );
}

/**
 * One hook from several, consulted in order: the first refusal wins (extensions' guards go
 * first, so that a call they refuse is never put to the user).
 */
export function chainToolGuards(...guards: BeforeToolCall[]): BeforeToolCall {
  return async (call, context) => {
    for (const guard of guards) {
      const decision = await guard(call, context);
      if (decision?.type === 'refuse') return decision;
    }
    return undefined;
  };
}
