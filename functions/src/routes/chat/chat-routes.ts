/**
 * The AI SDK's chat protocol, so that `useChat` with the stock `DefaultChatTransport` (`api:
 * base + '/chat'`, the chat `id` a session id) works against panto:
 *
 * - `POST /chat`: a turn, answered as the UI message stream (SSE, `x-vercel-ai-ui-message-stream: v1`);
 * - `GET /chat/{id}/stream`: the running turn from its start (what is stored, then live), or 204;
 * - `GET /chat/{id}`: the session's path as `UIMessage[]`, for `useChat`'s initial `messages`.
 *
 * A turn is started — its prompt or decisions stored, the lease taken — before the stream
 * starts, so that 400, 404, 409, 413, 422 and 429 are real statuses, as on
 * `POST /sessions/{id}/messages/stream`. A client that goes away does not stop the turn.
 */
import { isValidSessionId } from '@panto/aws/service';
import { SessionNotFoundError } from '@panto/core/agent-kit';
import type { Context } from 'hono';
import { chatBody, parse } from '../../api/request-schemas.js';
import { toHttpError } from '../../errors.js';
import type { ApiApp, AppEnv } from '../../http/app-env.js';
import { route } from '../../http/route.js';
import type { StartedTurn } from '../../services/turn-start.js';
import { pathSessionId, readJson } from '../read-request.js';
import type { RouteDeps } from '../route-deps.js';
import { stepFailure, turnJson } from '../turn-json.js';
import { AnswerChunks } from './answer-chunks.js';
import { type ChatBody, chatOpening } from './chat-request.js';
import { replayTurn } from './chat-replay.js';
import { uiStream } from './ui-stream.js';
import { answerId, type ChatMessage, chatMessages } from './ui-messages.js';

export function chatRoutes(app: ApiApp, deps: RouteDeps): void {
  const { turns, tree, limits } = deps;
  route(app, 'chat', async (c) => {
    const body = parse('body', chatBody, await readJson(c, limits.chatBodyLimitBytes));
    const owner = c.get('owner');
    // The chat's id is the session's: one that cannot be an id is not found, as in a path.
    if (!isValidSessionId(body.id)) throw new SessionNotFoundError(body.id);
    const id = body.id;
    c.set('sessionId', id);
    const opening = await chatOpening(body, () => tree.tree(owner, id));
    // Loaded before the turn starts: once its prompt is stored, nothing may fail before the stream does.
    const ui = await uiStream();
    const started =
      opening.type === 'decisions'
        ? await turns.start(owner, id, { decisions: opening.decisions }, { deadlineMs: limits.streamDeadlineMs })
        : await turns.start(owner, id, opening.text, {
            deadlineMs: limits.streamDeadlineMs,
            ...(opening.parentId === undefined ? {} : { parentId: opening.parentId }),
          });
    return streamChatTurn(c, deps, started, { id, continued: body.messages.at(-1)!, ui });
  });

  route(app, 'resumeChat', async (c) => {
    const id = pathSessionId(c);
    return replayTurn(c, deps, id);
  });

  route(app, 'getChat', async (c) => {
    const id = pathSessionId(c);
    const { tree: sessionTree, runningFrom } = await tree.chat(c.get('owner'), id);
    return c.json(chatMessages(sessionTree, runningFrom) satisfies ChatMessage[]);
  });
}

/**
 * Streams a started turn as the UI message stream and releases it at the end: `start`, the
 * denials of the decisions that resumed it, the answer's steps as the model writes them, an
 * `error` part when the turn failed (panto's error body as its text), and `finish` with the
 * turn's usage, cost and stop reason as the message's metadata.
 */
function streamChatTurn(
  c: Context<AppEnv>,
  { turns, limits, report }: RouteDeps,
  started: StartedTurn,
  { id, continued, ui }: { id: string; continued: ChatBody['messages'][number]; ui: Awaited<ReturnType<typeof uiStream>> },
): Response {
  const { createUIMessageStream, createUIMessageStreamResponse } = ui;
  c.set('turn', true);
  let ended!: () => void;
  c.set('streamed', new Promise<void>((resolve) => (ended = resolve)));
  const stream = createUIMessageStream<ChatMessage>({
    // Decisions continue the message that asked (the SDK's persistence mode keeps its id); a prompt's answer is a new one.
    ...(started.opened.type === 'approval' ? { originalMessages: [continued as ChatMessage] } : {}),
    execute: async ({ writer }) => {
      const chunks = new AnswerChunks((chunk) => writer.write(chunk));
      const deadline = AbortSignal.timeout(limits.streamDeadlineMs);
      try {
        if (started.opened.type === 'approval') {
          chunks.start({ session_id: id });
          chunks.decided(started.opened);
        } else chunks.start({ session_id: id }, answerId(started.opened.id));
        const outcome = await turns.run(started, { signal: deadline, receiver: (event) => chunks.receive(event) });
        const { incomplete, incomplete_reason } = turnJson(outcome, deadline);
        const failure = stepFailure(outcome.step);
        c.set('usage', outcome.step.usage);
        if (failure) {
          c.set('errorCode', failure.body.error.code);
          chunks.error(failure.body);
        }
        chunks.finish({ session_id: id, incomplete, ...(incomplete_reason === undefined ? {} : { incomplete_reason }) }, outcome.step.stopReason);
      } catch (error) {
        const failure = toHttpError(error);
        c.set('errorCode', failure.body.error.code);
        report(failure, `chat turn on ${id}`, error);
        chunks.error(failure.body);
        chunks.finish({ session_id: id, incomplete: true });
      } finally {
        await started.lock.release();
        ended();
      }
    },
  });
  return createUIMessageStreamResponse({ stream, keepAliveMs: limits.streamKeepAliveMs });
}
