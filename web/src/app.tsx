/** The page: signed out, the sign-in form; signed in, the session list beside a chat or the new-session form. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Api, type SessionSummary } from './api/client.js';
import { finishHostedSignIn, forgetToken, hostedSignInUrl, hostedSignOutUrl, keepToken, takeToken, type AuthEnvironment } from './auth.js';
import { Chat } from './components/chat.js';
import { describeFailure } from './api/failure.js';
import type { WebConfig } from './config.js';
import { NewSession } from './components/new-session.js';
import { SessionList } from './components/session-list.js';
import { SignIn } from './components/sign-in.js';
import { useLatest } from './hooks/use-latest.js';

/** Sessions per page of the list, and the most the API gives at once (`GET /sessions?limit`). */
const PAGE = 20;
const MAX_PAGE = 100;

const browser: AuthEnvironment = {
  location: window.location,
  history: window.history,
  storage: window.sessionStorage,
  now: () => Date.now(),
};

/** The open session lives in the fragment (`#session=<id>`), so a reload or a bookmark keeps it. */
function sessionInHash(): string | null {
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).get('session');
}

function showSession(id: string | null): void {
  const url = `${window.location.pathname}${window.location.search}${id === null ? '' : `#session=${encodeURIComponent(id)}`}`;
  window.history.pushState(null, '', url);
}

export function App({ config }: { config: WebConfig }) {
  const [token, setToken] = useState<string | null>(() => takeToken(browser));
  const [problem, setProblem] = useState<string | null>(null);
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [selected, setSelected] = useState<string | null>(sessionInHash);
  const [creating, setCreating] = useState(false);
  const [now, setNow] = useState(Date.now());

  const signOut = (why: string | null): void => {
    forgetToken(browser);
    setToken(null);
    setProblem(why);
  };

  const signOutLatest = useLatest(signOut);
  const api = useMemo(
    () =>
      token === null
        ? null
        : new Api({
            apiUrl: config.apiUrl,
            streamUrl: config.streamUrl,
            token,
            onUnauthorized: () => signOutLatest.current('Your sign-in has expired or is not valid here. Sign in again.'),
          }),
    [token, config.apiUrl, config.streamUrl, signOutLatest],
  );

  // Once, as the page opens: the hosted UI's redirect back to it carries the sign-in code.
  // biome-ignore lint/correctness/useExhaustiveDependencies: not again when the token or the configuration changes
  useEffect(() => {
    if (token !== null || !config.hostedUi) return;
    finishHostedSignIn(browser, config.hostedUi).then(
      (signedIn) => signedIn !== null && setToken(signedIn),
      (error: unknown) => setProblem(error instanceof Error ? error.message : String(error)),
    );
  }, []);

  useEffect(() => {
    const onHash = (): void => setSelected(sessionInHash());
    window.addEventListener('popstate', onHash);
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => {
      window.removeEventListener('popstate', onHash);
      clearInterval(timer);
    };
  }, []);

  const newButton = useRef<HTMLButtonElement>(null);
  /**
   * Where the focus goes when what had it closes (the new-session form, a deleted chat, a chat
   * left with ‹ Sessions on a phone) — once the list shows again: the session left, or New
   * session. Without it the focus falls to the page's start.
   */
  const [refocus, setRefocus] = useState<{ session: string | null; count: number }>({ session: null, count: 0 });
  const focusList = (session: string | null): void => setRefocus((last) => ({ session, count: last.count + 1 }));
  useEffect(() => {
    if (refocus.count === 0) return;
    const item =
      refocus.session === null ? null : document.querySelector<HTMLButtonElement>(`nav.sessions button[data-session="${CSS.escape(refocus.session)}"]`);
    (item ?? newButton.current)?.focus();
  }, [refocus]);

  /** How many sessions the list shows: a refresh reloads as many, so pages loaded on scroll stay. */
  const shown = useRef(0);
  shown.current = sessions.length;

  const loadSessions = async (more: boolean): Promise<void> => {
    if (api === null || (more && (cursor === null || loading))) return;
    setLoading(true);
    try {
      const page = await api.listSessions(more ? cursor : null, more ? PAGE : Math.min(MAX_PAGE, Math.max(PAGE, shown.current)));
      setSessions((current) => (more ? [...current, ...page.sessions.filter((session) => !current.some((known) => known.id === session.id))] : page.sessions));
      setCursor(page.next_cursor);
      setNow(Date.now());
    } catch (error) {
      setProblem(describeFailure(error));
    } finally {
      setLoading(false);
    }
  };

  const loadSessionsLatest = useLatest(loadSessions);
  useEffect(() => {
    // Signed in (a new token): the list of that user's sessions.
    if (api !== null) void loadSessionsLatest.current(false);
  }, [api, loadSessionsLatest]);

  if (token === null || api === null) {
    return (
      <SignIn
        hostedUi={config.hostedUi !== undefined}
        problem={problem}
        onHostedUi={() => {
          if (config.hostedUi) void hostedSignInUrl(browser, config.hostedUi).then((url) => window.location.assign(url));
        }}
        onToken={(pasted) => {
          keepToken(browser, pasted);
          setProblem(null);
          setToken(pasted);
        }}
      />
    );
  }

  const open = (id: string | null): void => {
    setCreating(false);
    setSelected(id);
    showSession(id);
  };

  const main = creating ? (
    <NewSession
      api={api}
      onCreated={(session) => {
        setSessions((current) => [session, ...current]);
        open(session.id);
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
      title={sessions.find((session) => session.id === selected)?.title ?? null}
      onChanged={() => void loadSessions(false)}
      onDeleted={() => {
        setSessions((current) => current.filter((session) => session.id !== selected));
        open(null);
        focusList(null);
      }}
      onBack={() => {
        open(null);
        focusList(selected);
      }}
    />
  ) : (
    <section class="welcome">
      <h1>panto</h1>
      <p>Pick a session, or start a new one.</p>
      {problem && (
        <p class="notice" role="alert">
          {problem}
        </p>
      )}
    </section>
  );

  return (
    <div class={`layout ${creating || selected !== null ? 'show-main' : 'show-list'}`}>
      <SessionList
        sessions={sessions}
        selected={selected}
        hasMore={cursor !== null}
        loading={loading}
        now={now}
        onSelect={open}
        onNew={() => setCreating(true)}
        onMore={() => void loadSessions(true)}
        newButton={newButton}
      />
      <main class="main">{main}</main>
      <footer class="account">
        <button
          type="button"
          class="link"
          onClick={() => {
            signOut(null);
            if (config.hostedUi) window.location.assign(hostedSignOutUrl(browser, config.hostedUi));
          }}
        >
          Sign out
        </button>
      </footer>
    </div>
  );
}
