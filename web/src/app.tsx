/** The page: signed out, the sign-in form; signed in, the session list beside a chat or a new session. */
import { Chat } from './components/chat.js';
import { NewSession } from './components/new-session.js';
import { SessionList } from './components/session-list.js';
import { SignIn } from './components/sign-in.js';
import { Welcome } from './components/welcome.js';
import type { WebConfig } from './config.js';
import { useAuth } from './hooks/use-auth.js';
import { useListFocus } from './hooks/use-list-focus.js';
import { useSelection } from './hooks/use-selection.js';
import { useSessions } from './hooks/use-sessions.js';
import { useState } from 'preact/hooks';
import { Account } from './components/account.js';

export function App({ config }: { config: WebConfig }) {
  const auth = useAuth(config);
  const list = useSessions(auth.api, auth.setProblem);
  const { selected, creating, setCreating, open, arrival, arrive } = useSelection();
  const { newButton, focusList } = useListFocus();
  const { api } = auth;
  // The usage is read again after each turn (a chat says it changed the session).
  const [turnsEnded, setTurnsEnded] = useState(0);

  if (api === null) {
    return <SignIn hostedUi={config.hostedUi !== undefined} problem={auth.problem} onHostedUi={auth.signInHosted} onToken={auth.signInWithToken} />;
  }

  const main = creating ? (
    <NewSession
      api={api}
      onStarted={(session, text) => {
        // Named by its first message, as the server names it; the list says so before the turn's end reloads it.
        list.add({ ...session, title: session.title ?? text });
        arrive({ sessionId: session.id, firstPrompt: text });
      }}
      onCancel={() => {
        setCreating(false);
        focusList(null);
      }}
    />
  ) : selected !== null ? (
    <Chat
      key={selected}
      api={api}
      sessionId={selected}
      firstPrompt={arrival?.firstPrompt}
      forkedFrom={arrival?.forkedFrom}
      title={list.sessions.find((session) => session.id === selected)?.title ?? null}
      onChanged={() => {
        void list.load(false);
        setTurnsEnded((count) => count + 1);
      }}
      onDeleted={() => {
        list.remove(selected);
        open(null);
        focusList(null);
      }}
      onForked={(session, from) => {
        list.add(session);
        arrive({ sessionId: session.id, forkedFrom: from });
      }}
      onOpen={open}
      onBack={() => {
        open(null);
        focusList(selected);
      }}
    />
  ) : (
    <Welcome problem={auth.problem} sessions={list.sessions} loaded={list.loaded} now={list.now} onNew={() => setCreating(true)} onSelect={open} />
  );

  return (
    <div class={`layout ${creating || selected !== null ? 'show-main' : 'show-list'}`}>
      <SessionList
        sessions={list.sessions}
        selected={selected}
        hasMore={list.hasMore}
        loading={list.loading}
        now={list.now}
        onSelect={open}
        onNew={() => setCreating(true)}
        onMore={() => void list.load(true)}
        newButton={newButton}
      />
      <main class="main">{main}</main>
      <Account api={api} turnsEnded={turnsEnded} onSignOut={auth.signOut} />
    </div>
  );
}
