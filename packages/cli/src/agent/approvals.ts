/**
 * The approval policy for tool calls, which follows the sandbox: `read` asks only for a secret
 * the sandbox hides from commands (`~/.ssh`, …); a `bash`
 * command that stays inside the sandbox's limits, and a `write` or `edit` to a place the
 * sandbox lets commands write, need no approval; a command that needs more (its `needs`:
 * network, writes outside, no sandbox at all) asks, naming what it needs — and so does every
 * `bash`, `write` and `edit` call when there is no sandbox (`--sandbox off`, or none on this
 * machine). The user can allow once, allow for this session, or deny with a reason the model
 * sees; `--yolo` grants without asking (it does not turn the sandbox off); where nobody can
 * be asked (`-p`, piped input) the call is refused with an error result that says how to
 * allow it.
 */
import type { BeforeToolCall, ToolCallBlock, ToolCallDecision, ToolContext } from '@panto/core';
import { NEED_DESCRIPTIONS, needsBeyond, parseNeeds, type CommandSandbox, type SandboxGrants, type SandboxNeed } from '../sandbox/policy.js';
import { resolvePath } from '../tools/input.js';
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The tools that change files or run commands, and so may ask first (and `read`, of a secret the sandbox hides). */
export const ASKING_TOOLS: readonly string[] = ['bash', 'write', 'edit', 'read'];

/** What the user answered to "may this tool call run?". */
export type ApprovalAnswer =
  | { type: 'once' }
  /** Allow calls like this one (the tool, with the same needs) for the rest of the session, without asking again. */
  | { type: 'session' }
  | { type: 'deny'; reason?: string };

/** What a call asks to be allowed. */
export interface ApprovalRequest {
  /** What the call needs beyond the sandbox, in words ("network access"); empty when there is no sandbox to go beyond. */
  needs: readonly string[];
  /** How the "for this session" choice names what it allows ("bash", "bash with network access"). */
  kind: string;
}

/**
 * Asks the user about one call. Contract: resolves once, never rejects for a user's answer;
 * resolves `deny` when `signal` aborts.
 */
export type AskApproval = (call: ToolCallBlock, signal: AbortSignal, request: ApprovalRequest) => Promise<ApprovalAnswer>;

/** How calls that need approval are decided. */
export type ApprovalMode =
  /** `--yolo`: run them (granting what they need). */
  | { type: 'yolo' }
  /** Interactive: ask the user. */
  | { type: 'ask'; ask: AskApproval }
  /** Nobody to ask: refuse them; `where` names the situation ("panto -p"). */
  | { type: 'refuse'; where: string };

/** The sandbox the calls run under, and where granted needs are handed to the bash tool. */
export interface ApprovalSandbox {
  sandbox: CommandSandbox;
  grants: SandboxGrants;
  /** The working folder, against which relative paths of write and edit resolve. */
  cwd: string;
}

/** A call that needs approval: the key of a "for this session" allowance, and the needs it would grant. */
interface Pending {
  key: string;
  needs: SandboxNeed[];
  request: ApprovalRequest;
}

/**
 * The CLI's `beforeToolCall` for the policy: a hook the agent consults before each call.
 *
 * @example
 * const approvals = new Approvals({ type: 'refuse', where: 'panto -p' }, { sandbox, grants, cwd });
 * const agent = new Agent({ provider, beforeToolCall: approvals.beforeToolCall });
 */
export class Approvals {
  readonly #mode: ApprovalMode;
  readonly #sandbox: ApprovalSandbox | undefined;
  /** Kinds of call allowed for the rest of the session. */
  readonly #allowed = new Set<string>();

  constructor(mode: ApprovalMode, sandbox?: ApprovalSandbox) {
    this.#mode = mode;
    this.#sandbox = sandbox;
  }

  /** Whether this call would ask (or be refused) now. */
  asks(call: ToolCallBlock): boolean {
    const pending = this.#pending(call);
    return pending !== undefined && this.#mode.type !== 'yolo' && !this.#allowed.has(pending.key);
  }

  readonly beforeToolCall: BeforeToolCall = async (call: ToolCallBlock, context: ToolContext): Promise<ToolCallDecision | undefined> => {
    const pending = this.#pending(call);
    if (pending === undefined) return undefined;
    const allow = (): ToolCallDecision => {
      if (pending.needs.length > 0) this.#sandbox?.grants.grant(context.toolCallId, pending.needs);
      return { type: 'allow' };
    };
    const mode = this.#mode;
    if (mode.type === 'yolo' || this.#allowed.has(pending.key)) return allow();
    if (mode.type === 'refuse') return { type: 'refuse', reason: refusalReason(call.name, mode.where, pending.request.needs) };
    const answer = await mode.ask(call, context.signal, pending.request);
    switch (answer.type) {
      case 'once':
        return allow();
      case 'session':
        this.#allowed.add(pending.key);
        return allow();
      case 'deny':
        return { type: 'refuse', reason: `the user denied it${answer.reason ? `: ${answer.reason}` : ''}` };
      default: {
        const unexpected: never = answer;
        return unexpected;
      }
    }
  };

  /** What the call needs approved; undefined when it may run as it is. */
  #pending(call: ToolCallBlock): Pending | undefined {
    if (!ASKING_TOOLS.includes(call.name)) return undefined;
    const box = this.#sandbox;
    const path = typeof call.input.path === 'string' ? call.input.path : undefined;
    // "For this session" on a file covers its folder only (links followed): allowing a write
    // to ~/notes/todo.md must not allow one to ~/.bashrc.
    const folder = path === undefined ? undefined : landingFolder(resolvePath(box?.cwd ?? process.cwd(), path));
    const kind = folder === undefined ? call.name : `${call.name} in ${folder}`;
    const plain = { key: folder === undefined ? call.name : `${call.name}:${folder}`, needs: [], request: { needs: [], kind } };
    if (call.name === 'read') {
      if (path === undefined) return undefined;
      const absolute = resolvePath(box?.cwd ?? process.cwd(), path);
      // panto's own process is there (/proc/self/environ holds the provider keys), sandbox or not.
      if (isSystemFile(absolute)) return plain;
      // A secret a sandboxed command could not read is not read into the conversation unasked either.
      return box === undefined || box.sandbox.allowsRead(absolute) ? undefined : plain;
    }
    if (box === undefined) return plain;
    if (call.name !== 'bash') return path !== undefined && box.sandbox.allowsWrite(resolvePath(box.cwd, path)) ? undefined : plain;
    let requested: Set<SandboxNeed>;
    try {
      requested = parseNeeds(call.input.needs);
    } catch {
      // The tool reports the bad input; it runs nothing.
      return undefined;
    }
    // full-access includes the rest: asking for it alone says it all.
    const needs = requested.has('full-access') ? ['full-access' as const] : needsBeyond(requested, box.sandbox.standing);
    if (needs.length === 0) return undefined;
    const words = needs.map((need) => NEED_DESCRIPTIONS[need]);
    return { key: `bash:${needs.join('+')}`, needs, request: { needs: words, kind: `bash with ${words.join(' and ')}` } };
  }
}

/** Whether `path` (or where its links lead) is under `/proc`: the processes' memory and environments, panto's own among them. */
function isSystemFile(path: string): boolean {
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // Not there: only its name counts.
  }
  return [path, real].some((candidate) => candidate === '/proc' || candidate.startsWith('/proc/'));
}

/** The real folder a file at `path` is in: links of the part that exists followed (the file's own too). */
function landingFolder(path: string): string {
  try {
    return dirname(realpathSync(path));
  } catch {
    // Not there yet (or a dangling link): where its folder lands.
  }
  let folder = dirname(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(folder), ...rest);
    } catch {
      if (dirname(folder) === folder) return dirname(path);
      rest.unshift(basename(folder));
      folder = dirname(folder);
    }
  }
}

/** The error a refused call gets where nobody can be asked: it says what it needed and how to allow it. */
export function refusalReason(tool: string, where: string, needs: readonly string[] = []): string {
  if (needs.length > 0) {
    return (
      `${tool} asked for ${needs.join(' and ')}, beyond the sandbox, and ${where} cannot ask the user for it. ` +
      'Do without it, or the user can run panto again with --yolo (or --allow-network for the network).'
    );
  }
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
