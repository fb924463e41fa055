/**
 * One session: its transcript, the composer, and what can be done to it (branches, fork,
 * rename, export, compact, delete, its model). A turn streams in as it is generated; a turn
 * already running when the session opens (another tab, or before a reload) is followed until
 * it ends.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { SessionSummary } from '../api/wire.js';
import { useBranches } from '../hooks/use-branches.js';
import { useSession } from '../hooks/use-session.js';
import { useSessionActions } from '../hooks/use-session-actions.js';
import { useTurn } from '../hooks/use-turn.js';
import { plainText } from '../plain-text.js';
import { firstPrompt } from '../turns.js';
import { DismissibleAlert } from './alert.js';
import { ApprovalPanel } from './approval-panel.js';
import { BranchesDialog } from './branches-dialog.js';
import { ChatHeader } from './chat-header.js';
import { ChatModel } from './chat-model.js';
import { Composer } from './composer.js';
import { Transcript } from './transcript.js';

export interface ChatProps {
  api: Api;
  sessionId: string;
  /** The session's title as listed (renamed, or its first prompt shortened); null when not known yet. */
  title: string | null;
  /** The session's list entry changed (title, time, model) or it is gone: the list reloads. Must not throw. */
  onChanged(): void;
  onDeleted(): void;
  /** A fork of this session was made: it joins the list and opens. Must not throw. */
  onForked(session: SessionSummary): void;
  onBack(): void;
}

/** The page keys a chat by its session: one chat, one session, opened once. */
export function Chat({ api, sessionId, title: listedTitle, onChanged, onDeleted, onForked, onBack }: ChatProps) {
  const [notice, setNotice] = useState<string | null>(null);
  const session = useSession(api, sessionId, setNotice);
  const { contents, gone, load } = session;
  const turn = useTurn({ api, sessionId, load, say: setNotice, onChanged });
  const actions = useSessionActions({ api, sessionId, say: setNotice, load, onChanged, onDeleted, onForked });
  const branches = useBranches({ api, sessionId, session, running: turn.running, say: setNotice, send: turn.send });
  const title = plainText(listedTitle ?? firstPrompt(contents?.messages ?? []) ?? '') || 'Untitled session';
  useEffect(() => {
    document.title = gone ? 'panto' : `${title} · panto`;
    return () => {
      document.title = 'panto';
    };
  }, [title, gone]);

  return (
    <section class="chat" aria-label="Chat">
      <ChatHeader
        title={title}
        contents={contents}
        gone={gone}
        running={turn.running}
        actions={actions}
        tree={branches.tree}
        onBranches={() => branches.setDialog(true)}
        model={
          contents && (
            <ChatModel
              api={api}
              sessionId={sessionId}
              current={contents.active_model}
              running={turn.running}
              say={setNotice}
              onChanged={() => Promise.all([load(), onChanged()])}
            />
          )
        }
        onBack={onBack}
      />
      <Transcript
        contents={contents}
        pending={turn.pending}
        controls={gone ? undefined : branches.controls}
        earlier={branches.earlier}
        danglingId={branches.danglingId}
        onResend={(text) => turn.send(text)}
      />
      {!gone && contents && contents.pending_approvals.length > 0 && turn.pending === null && (
        // Keyed by the calls: a new pause starts with nothing chosen.
        <ApprovalPanel
          key={contents.pending_approvals.map((call) => call.tool_call_id).join(' ')}
          pending={contents.pending_approvals}
          busy={turn.running}
          onDecide={turn.decide}
        />
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
      {branches.dialog && branches.tree && (
        <BranchesDialog
          tree={branches.tree}
          index={branches.index}
          now={Date.now()}
          busy={turn.running || branches.switching || actions.working !== null}
          onOpen={(leaf) => void branches.open(leaf).then(() => branches.setDialog(false))}
          onFork={(leaf) => void actions.fork(leaf).then(() => branches.setDialog(false))}
          onClose={() => branches.setDialog(false)}
        />
      )}
    </section>
  );
}
