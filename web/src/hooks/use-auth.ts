/** The signed-in user's API: the token (from the sign-in link, a pasted one, or the hosted UI), and signing out. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { Api } from '../api/client.js';
import { type AuthEnvironment, finishHostedSignIn, forgetToken, hostedSignInUrl, hostedSignOutUrl, keepToken, takeToken, tokenChanged } from '../auth.js';
import type { WebConfig } from '../config.js';
import { useLatest } from './use-latest.js';

const browser: AuthEnvironment = {
  location: window.location,
  history: window.history,
  storage: window.localStorage,
  tabStorage: window.sessionStorage,
  now: () => Date.now(),
};

export interface Auth {
  /** The API as the signed-in user; null when signed out. */
  api: Api | null;
  /** What went wrong, in words (a sign-in that failed or expired, a list that did not load); null: nothing. */
  problem: string | null;
  setProblem(problem: string | null): void;
  /** Signs in with a token pasted into the sign-in form (checked there). */
  signInWithToken(token: string): void;
  /** Sends the browser to the user pool's hosted UI, when the build has one. */
  signInHosted(): void;
  /** Forgets the token in every tab of this browser; with a hosted UI, ends the user pool's session too. */
  signOut(): void;
}

export function useAuth(config: WebConfig): Auth {
  const [token, setToken] = useState<string | null>(() => takeToken(browser));
  const [problem, setProblem] = useState<string | null>(null);

  /** Signs this tab out; `refused`: the token the API refused, which is forgotten only while no other tab replaced it. */
  const signOut = (why: string | null, refused?: string): void => {
    forgetToken(browser, refused);
    setToken(null);
    setProblem(why);
  };

  // Another tab signed out (or in, as someone else): this one follows, as the chat apps' tabs do.
  useEffect(() => {
    const onStorage = (event: StorageEvent): void => {
      if (event.storageArea !== window.localStorage) return;
      const next = tokenChanged(event, Date.now());
      if (next === undefined) return;
      setToken(next);
      setProblem(null);
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, []);

  const signOutLatest = useLatest(signOut);
  const api = useMemo(
    () =>
      token === null
        ? null
        : new Api({
            apiUrl: config.apiUrl,
            streamUrl: config.streamUrl,
            token,
            onUnauthorized: () => signOutLatest.current('Your sign-in has expired or is not valid here. Sign in again.', token),
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

  return {
    api,
    problem,
    setProblem,
    signInWithToken: (pasted) => {
      keepToken(browser, pasted);
      setProblem(null);
      setToken(pasted);
    },
    signInHosted: () => {
      if (config.hostedUi) void hostedSignInUrl(browser, config.hostedUi).then((url) => window.location.assign(url));
    },
    signOut: () => {
      signOut(null);
      if (config.hostedUi) window.location.assign(hostedSignOutUrl(browser, config.hostedUi));
    },
  };
}
