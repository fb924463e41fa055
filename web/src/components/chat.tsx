/**
 * One session: its transcript, the composer, and what can be done to it (branches, fork,
 * rename, export, compact, delete, its model). A turn streams in as it is generated; a turn
 * already running when the session opens (another tab, or before a reload) is followed until
 * it ends.
 */
import { useState } from 'preact/hooks';
import type { Api } from '../api/client.js';
import type { SessionContents, SessionSummary } from '../api/wire.js';
import { useBranches } from '../hooks/use-branches.js';
import { useDocumentTitle } from '../hooks/use-document-title.js';
import type { ForkedFrom } from '../hooks/use-selection.js';
import { useSession } from '../hooks/use-session.js';
import { useSessionActions } from '../hooks/use-session-actions.js';
import { useSessionLog } from '../hooks/use-session-log.js';
import { type OpenTurn, useTurn } from '../hooks/use-turn.js';
import { plainText } from '../plain-text.js';
import { firstPrompt } from '../turns.js';
import { DismissibleAlert } from './alert.js';
import { ApprovalPanel } from './approval-panel.js';
import { BranchesDialog } from './branches-dialog.js';
import { ChatHeader } from './chat-header.js';
import { ChatModel } from './chat-model.js';
import { Composer } from './composer.js';
import { ForkNotice } from './fork-notice.js';
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
  onForked(session: SessionSummary, from: ForkedFrom): void;
  /** Opens another session (the original of a fork). Must not throw. */
  onOpen(sessionId: string): void;
  onBack(): void;
  /** The first message of a session created for it (a new session): sent as the chat opens. */
  firstPrompt?: string | undefined;
  /** The session this one was just forked from, when it was: the chat says so. */
  forkedFrom?: ForkedFrom | undefined;
}

/** The page keys a chat by its session: one chat, one session, opened once. */
export function Chat({ api, sessionId, title: listedTitle, onChanged, onDeleted, onForked, onOpen, onBack, firstPrompt: first, forkedFrom }: ChatProps) {
  const [notice, setNotice] = useState<string | null>(null);
  const log = useSessionLog(api, sessionId, setNotice);
  // The tree is read with the session, whenever no turn runs on it: the two show together.
  const session = useSession(api, sessionId, setNotice, (next) => log.refresh(next.entry_count));
  const { contents, gone, load } = session;
  const turn = useTurn({ api, sessionId, load, say: setNotice, onChanged, first });
  const title = plainText(listedTitle ?? firstPrompt(contents?.messages ?? []) ?? turn.pending?.prompt ?? '') || 'Untitled session';
  useDocumentTitle(gone ? null : title);
  const actions = useSessionActions({
    api,
    sessionId,
    say: setNotice,
    load,
    onChanged,
    onDeleted,
    onForked: (fork) => onForked(fork, { id: sessionId, title }),
  });
  const branches = useBranches({ api, sessionId, session, log, running: turn.running, say: setNotice, send: turn.send });

  return (
    <section class="chat" aria-label="Chat">
      <ChatHeader
        title={title}
        loading={contents === null && turn.pending === null}
        contents={contents}
        gone={gone}
        running={turn.running}
        actions={actions}
        tree={branches.tree}
        branches={branches.leaves.length}
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
      {forkedFrom !== undefined && !gone && <ForkNotice from={forkedFrom} onOpen={onOpen} />}
      <Transcript
        contents={contents}
        pending={turn.pending}
        controls={gone ? undefined : branches.controls}
        earlier={branches.earlier}
        danglingId={branches.danglingId}
        onResend={(text) => turn.send(text)}
      />
      {!gone && <TurnWaits contents={contents} turn={turn} />}
      <DismissibleAlert message={notice} onDismiss={() => setNotice(null)} />
      {!gone && (
        <Composer draft={turn.draft} onDraft={turn.setDraft} running={turn.running} stopping={turn.waiting === 'stop'} onSend={turn.send} onStop={turn.stop} />
      )}
      {branches.dialog && branches.tree && (
        <BranchesDialog
          tree={branches.tree}
          leaves={branches.leaves}
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

/** What the turn waits on, under the transcript: tool calls that need a decision, or the turn itself (a stop, another tab's turn). */
function TurnWaits({ contents, turn }: { contents: SessionContents | null; turn: OpenTurn }) {
  return (
    <>
      {contents && contents.pending_approvals.length > 0 && turn.pending === null && (
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
    </>
  );
}
