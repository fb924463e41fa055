/**
 * What a `POST /chat` body asks for. The server owns the history: of the messages the
 * transport sends, only the newest is read — a user message is the prompt, an assistant
 * message's approval responses are the decisions — and a regenerate or an edit names the
 * prompt it replaces, which the session's tree, not the client, says the text and place of.
 */
import type { ApprovalDecision, SessionTree } from '@panto/core/agent-kit';
import type * as z from 'zod/mini';
import { approvalsBody, type chatBody, parse } from '../../api/request-schemas.js';
import { invalidField } from '../../errors.js';

export type ChatBody = z.output<ReturnType<typeof chatBody>>;
type BodyMessage = ChatBody['messages'][number];

/** A prompt (continuing the active leaf, or a new branch from `parentId`), or the decisions that resume a paused turn. */
export type ChatOpening = { type: 'prompt'; text: string; parentId?: string | null } | { type: 'decisions'; decisions: ApprovalDecision[] };

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The turn `body` opens. `tree` reads the session (owner-checked) only for a regenerate or an
 * edit. A body that fits none of the cases is a 400 naming `messages` or `messageId`.
 */
export async function chatOpening(body: ChatBody, tree: () => Promise<SessionTree>): Promise<ChatOpening> {
  const { messages } = body;
  const last = messages.at(-1)!;
  if (body.trigger === 'regenerate-message') {
    // The SDK drops the answer it regenerates: the newest message is the prompt it answered.
    const at = messages.findLastIndex((message) => message.role === 'user');
    if (at === -1) throw invalidField('body', 'messages', 'a regenerate needs the prompt it answers');
    return branchFrom(await tree(), messages, at);
  }
  if (last.role === 'assistant') return { type: 'decisions', decisions: approvalResponses(last) };
  if (last.role !== 'user')
    throw invalidField('body', 'messages', 'the newest message must be a user message, or an assistant message with approval responses');
  // An edit (`sendMessage({ text, messageId })`) replaces a prompt: the new one is its sibling.
  if (body.messageId !== undefined && body.messageId === last.id) {
    const { parentId } = await branchFrom(await tree(), messages, messages.length - 1);
    return { type: 'prompt', text: promptText(last), parentId };
  }
  return { type: 'prompt', text: promptText(last) };
}

/** The text of a user message: its text parts, joined. */
function promptText(message: BodyMessage): string {
  const text = message.parts.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');
  if (text.trim() === '') throw invalidField('body', 'messages', 'the newest user message has no text');
  if (LONE_SURROGATE.test(text)) throw invalidField('body', 'messages', 'must be Unicode text: it holds a lone surrogate');
  return text;
}

/**
 * The prompt `messages[at]` stands for, asked again as its sibling (the same text, from the
 * same parent): a new branch, the old one kept. The message is found by its id when it is a
 * prompt of the session (`GET /chat/{id}` gives entry ids), else by its place among the
 * prompts of the active path (a message this page sent has an id the SDK made).
 */
async function branchFrom(tree: SessionTree, messages: readonly BodyMessage[], at: number): Promise<{ type: 'prompt'; text: string; parentId: string | null }> {
  const message = messages[at]!;
  let entry = tree.get(message.id);
  if (!(entry?.type === 'message' && entry.message.role === 'user')) {
    const nth = messages.slice(0, at + 1).filter((candidate) => candidate.role === 'user').length;
    const end = tree.load().at;
    const prompts = end === null ? [] : tree.pathTo(end.id).filter((candidate) => candidate.type === 'message' && candidate.message.role === 'user');
    entry = prompts[nth - 1];
  }
  if (!(entry?.type === 'message' && entry.message.role === 'user')) {
    throw invalidField('body', 'messages', 'the prompt to answer again is not one of this session');
  }
  return { type: 'prompt', text: entry.message.content, parentId: entry.parent_id };
}

/** The decisions the newest assistant message's tool parts carry (`addToolApprovalResponse`). */
function approvalResponses(message: BodyMessage): ApprovalDecision[] {
  const decisions: ApprovalDecision[] = [];
  for (const part of message.parts) {
    if (part.state !== 'approval-responded' || typeof part.toolCallId !== 'string') continue;
    const approval = part.approval as { approved?: unknown; reason?: unknown } | undefined;
    if (typeof approval?.approved !== 'boolean') throw invalidField('body', 'messages', 'an approval response without `approved`');
    const reason = typeof approval.reason === 'string' ? { reason: approval.reason } : {};
    decisions.push({ tool_call_id: part.toolCallId, decision: approval.approved ? 'approve' : 'deny', ...reason });
  }
  if (decisions.length === 0) throw invalidField('body', 'messages', 'the newest assistant message carries no approval response');
  // The same rules as `POST /sessions/{id}/approvals`: lengths, count, one decision per call.
  parse('body', approvalsBody, { decisions });
  return decisions;
}
