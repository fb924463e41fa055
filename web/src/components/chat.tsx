/**
 * One session: its transcript, the composer, and what can be done to it (rename, export,
 * compact, delete). A turn streams in as it is generated; a turn already running when the
 * session opens (another tab, or before a reload) is followed until it ends.
 */
import { useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import { useSession } from '../hooks/use-session.js';
import { useSessionActions } from '../hooks/use-session-actions.js';
import { useTurn } from '../hooks/use-turn.js';
import { firstPrompt } from '../turns.js';
import { DismissibleAlert } from './alert.js';
import { ChatHeader } from './chat-header.js';
import { Composer } from './composer.js';
import { Transcript } from './transcript.js';

export interface ChatProps {
  api: Api;
  sessionId: string;
  /** The session's title as listed (renamed, or its first prompt shortened); null when not known yet. */
  title: string | null;
  /** The session's list entry changed (title, time) or it is gone: the list reloads. Must not throw. */
  onChanged(): void;
  onDeleted(): void;
  onBack(): void;
}

/** The page keys a chat by its session: one chat, one session, opened once. */
export function Chat({ api, sessionId, title: listedTitle, onChanged, onDeleted, onBack }: ChatProps) {
  const [notice, setNotice] = useState<string | null>(null);
  const { contents, gone, load } = useSession(api, sessionId, setNotice);
  const turn = useTurn({ api, sessionId, load, say: setNotice, onChanged });
  const actions = useSessionActions({ api, sessionId, say: setNotice, load, onChanged, onDeleted });
  const title = listedTitle ?? firstPrompt(contents?.messages ?? []) ?? 'Untitled session';

  return (
    <section class="chat" aria-label="Chat">
      <ChatHeader title={title} contents={contents} gone={gone} running={turn.running} actions={actions} onBack={onBack} />
      <Transcript contents={contents} pending={turn.pending} />
      {contents?.dangling_user && !contents.turn && turn.pending === null && (
        <div class="dangling" role="status">
          <span>Your last message got no answer (the turn failed): “{contents.dangling_user.slice(0, 200)}”</span>
          <button type="button" onClick={() => turn.send(contents.dangling_user ?? '')}>
            Resend
          </button>
        </div>
      )}
      {turn.waiting !== null && (
        <p class="status" role="status">
          {turn.waiting === 'stop' ? 'Stopping the turn…' : 'Waiting for the turn to finish…'}
        </p>
      )}
      <DismissibleAlert message={notice} onDismiss={() => setNotice(null)} />
      {!gone && (
        <Composer draft={turn.draft} onDraft={turn.setDraft} running={turn.running} stopping={turn.waiting === 'stop'} onSend={turn.send} onStop={turn.stop} />
      )}
    </section>
  );
}
