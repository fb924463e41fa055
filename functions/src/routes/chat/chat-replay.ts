/**
 * `GET /chat/{id}/stream` — what `useChat({ resume: true })` calls on mount: 204 when no turn
 * runs, else the running turn's answer from its start, as the UI message stream. It follows
 * the session as `GET /sessions/{id}/events` does (turns.follow: the store, polled; no
 * Redis), so any process or instance answers it: what the turn stored, the answer so far
 * (its partial, stored about once a second), then each write as it lands, until the turn ends.
 */
import type { Context } from 'hono';
import { toHttpError } from '../../errors.js';
import type { AppEnv } from '../../http/app-env.js';
import type { FollowEvent } from '../../services/turn-service.js';
import type { RouteDeps } from '../route-deps.js';
import { AnswerChunks } from './answer-chunks.js';
import { uiStream } from './ui-stream.js';
import { answerId, type ChatMessage, chatMessages } from './ui-messages.js';

export async function replayTurn(c: Context<AppEnv>, { turns, tree, limits, report }: RouteDeps, id: string): Promise<Response> {
  const deadline = AbortSignal.timeout(limits.streamDeadlineMs);
  // A client that goes away stops the following (a local server says so; Lambda runs on to the turn's end or the deadline).
  const signal = AbortSignal.any([deadline, c.req.raw.signal]);
  // Opened before the stream starts, so that 404 is a real status and 204 says no turn runs.
  const events = (await turns.follow(c.get('owner'), id, { signal, pollMs: limits.eventsPollMs }))[Symbol.asyncIterator]();
  const first = await events.next();
  if (first.done === true || first.value.type !== 'turn' || first.value.turn === null) {
    await events.return?.();
    return c.body(null, 204);
  }
  /**
   * The id of the message the turn writes, as the page has it: the answer to the turn's prompt
   * (its first entry); for a turn resumed by decisions, the message that asked, as
   * `GET /chat/{id}` gives it (one read more, only then).
   */
  const messageId = async (first: FollowEvent): Promise<string | undefined> => {
    if (first.type === 'message' && first.record.message.role === 'user') return answerId(first.record.id);
    if (first.type !== 'approval') return undefined;
    const chat = await tree.chat(c.get('owner'), id);
    return chatMessages(chat.tree, chat.runningFrom).at(-1)?.id;
  };
  const { createUIMessageStream, createUIMessageStreamResponse } = await uiStream();
  const stream = createUIMessageStream<ChatMessage>({
    execute: async ({ writer }) => {
      const chunks = new AnswerChunks((chunk) => writer.write(chunk));
      let begun = false;
      try {
        for (let next = await events.next(); next.done !== true; next = await events.next()) {
          if (!begun) chunks.start({ session_id: id }, await messageId(next.value));
          begun = true;
          replay(chunks, next.value, id);
        }
      } catch (error) {
        if (!begun) chunks.start({ session_id: id });
        // The stream has started: a failure can only end it. The turn may still run; the client resumes again.
        const failure = toHttpError(error);
        report(failure, `chat stream of session ${id}`, error);
        chunks.error(failure.body);
        chunks.finish({ session_id: id, incomplete: true });
      }
    },
  });
  return createUIMessageStreamResponse({ stream, keepAliveMs: limits.streamKeepAliveMs });
}

function replay(chunks: AnswerChunks, event: FollowEvent, id: string): void {
  switch (event.type) {
    case 'turn':
      return;
    case 'message':
      chunks.stored(event.record.message);
      return;
    case 'approval':
      chunks.decided(event.record);
      return;
    case 'partial': {
      const text = event.partial.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      chunks.partial(text);
      return;
    }
    case 'end':
      // Still running when the following stopped (the deadline, the client gone): not finished.
      chunks.finish({ session_id: id, incomplete: event.turn !== null });
      return;
    default:
      event satisfies never;
  }
}
