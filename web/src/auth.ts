/**
 * Signing in. The page needs a bearer token for the API, and gets it one of three ways:
 * - the local stack's sign-in link, `http://127.0.0.1:<port>/#token=<jwt>`: taken from the
 *   fragment, kept, and removed from the address bar;
 * - a token pasted into the sign-in form (`npm run -s token -- <owner>`);
 * - on AWS, the user pool's hosted UI: authorization code with PKCE (RFC 7636), the verifier
 *   kept in the tab's session storage across the redirect, the code exchanged at
 *   `/oauth2/token` for an access token (what the API's authorizer accepts).
 * The token is kept in local storage, as the chat apps keep a sign-in: every tab of this
 * browser on this origin uses it — a session link opened in a new tab, a bookmark — until it
 * expires or you sign out, which clears it for every tab (docs/web.md says what that means on
 * a shared computer).
 */
import type { WebConfig } from './config.js';

const TOKEN_KEY = 'panto.token';
const PKCE_KEY = 'panto.pkce';

/** What the page needs of `window`: passed in so the logic can be tested without one. */
export interface AuthEnvironment {
  location: { href: string; origin: string; pathname: string; search: string; hash: string };
  history: { replaceState(data: unknown, unused: string, url?: string | URL | null): void };
  /** The browser's storage for this origin (local storage): the token, shared by every tab. */
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  /** This tab's own (session storage): a hosted-UI sign-in's verifier and state, which belong to the tab that started it. */
  tabStorage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  now(): number;
}

/** The claims the page reads from a token (it never verifies it: the API does). */
export interface TokenClaims {
  sub?: string;
  exp?: number;
  username?: string;
}

/** The payload of a JWT, or null for something that is not one. */
export function tokenClaims(token: string): TokenClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === undefined) return null;
  try {
    const base64 = parts[1].replace(/-/g, '+').replace(/_/g, '/');
    const json = decodeURIComponent(
      Array.from(
        atob(base64.padEnd(base64.length + ((4 - (base64.length % 4)) % 4), '=')),
        (char) => `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`,
      ).join(''),
    );
    const claims = JSON.parse(json) as unknown;
    return typeof claims === 'object' && claims !== null ? (claims as TokenClaims) : null;
  } catch {
    // Bad base64, bad UTF-8 or bad JSON: not a JWT, which null says — the caller refuses the
    // token with a message (tokenProblem), and nothing else depends on what failed.
    return null;
  }
}

/** Why a token cannot be used, or null when it can (shape and expiry only). */
export function tokenProblem(token: string, now: number): string | null {
  const claims = tokenClaims(token.trim());
  if (claims === null) return 'That is not a token (a JWT has three parts separated by dots).';
  if (typeof claims.exp === 'number' && claims.exp * 1000 <= now) return 'That token has expired.';
  return null;
}

/**
 * The token to use: a `#token=` fragment first (then kept, and the fragment removed from the
 * address bar), else the kept one while it has not expired.
 */
export function takeToken(env: AuthEnvironment): string | null {
  const fragment = new URLSearchParams(env.location.hash.replace(/^#/, ''));
  const fromLink = fragment.get('token');
  if (fromLink !== null) {
    fragment.delete('token');
    const rest = fragment.toString();
    env.history.replaceState(null, '', `${env.location.pathname}${env.location.search}${rest ? `#${rest}` : ''}`);
    if (tokenProblem(fromLink, env.now()) === null) {
      env.storage.setItem(TOKEN_KEY, fromLink);
      return fromLink;
    }
  }
  const stored = env.storage.getItem(TOKEN_KEY);
  if (stored !== null && tokenProblem(stored, env.now()) === null) return stored;
  if (stored !== null) env.storage.removeItem(TOKEN_KEY);
  return null;
}

export function keepToken(env: AuthEnvironment, token: string): void {
  env.storage.setItem(TOKEN_KEY, token.trim());
}

/**
 * Forgets the kept token — for every tab. With `token`, only while it is still that one: a tab
 * whose token the API refused does not sign out a newer sign-in another tab made.
 */
export function forgetToken(env: AuthEnvironment, token?: string): void {
  if (token === undefined || env.storage.getItem(TOKEN_KEY) === token) env.storage.removeItem(TOKEN_KEY);
}

/**
 * The token another tab left this browser with, from a `storage` event: the new one (signed in
 * there), null (signed out there, or one that cannot be used), or undefined for an event about
 * something else.
 */
export function tokenChanged(event: Pick<StorageEvent, 'key' | 'newValue'>, now: number): string | null | undefined {
  // A null key: the whole storage was cleared (the browser's "clear site data"), the token with it.
  if (event.key !== TOKEN_KEY && event.key !== null) return undefined;
  return event.newValue !== null && event.key !== null && tokenProblem(event.newValue, now) === null ? event.newValue : null;
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/** Where the hosted UI sends the browser back: this page, without query or fragment. */
function redirectUri(env: AuthEnvironment): string {
  return `${env.location.origin}${env.location.pathname}`;
}

/** The hosted UI's sign-in URL for a fresh PKCE verifier and state (kept in the tab's session storage). */
export async function hostedSignInUrl(env: AuthEnvironment, hostedUi: NonNullable<WebConfig['hostedUi']>): Promise<string> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  env.tabStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state }));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: hostedUi.clientId,
    redirect_uri: redirectUri(env),
    scope: 'openid email profile',
    state,
    code_challenge_method: 'S256',
    code_challenge: challenge,
  });
  return `${hostedUi.domain}/oauth2/authorize?${query.toString()}`;
}

/**
 * Finishes a hosted-UI sign-in when the page was opened with `?code=…&state=…`: checks the
 * state, exchanges the code (with the verifier) for tokens, keeps the access token and
 * clears the query from the address bar. Null when the page was not opened that way.
 * Throws with a readable message when the exchange fails.
 */
export async function finishHostedSignIn(
  env: AuthEnvironment,
  hostedUi: NonNullable<WebConfig['hostedUi']>,
  fetcher: typeof fetch = fetch,
): Promise<string | null> {
  const query = new URLSearchParams(env.location.search);
  const code = query.get('code');
  const error = query.get('error');
  if (code === null && error === null) return null;
  env.history.replaceState(null, '', redirectUri(env));
  const saved = env.tabStorage.getItem(PKCE_KEY);
  env.tabStorage.removeItem(PKCE_KEY);
  if (error !== null) throw new Error(`Sign-in failed: ${query.get('error_description') ?? error}`);
  const pkce = saved === null ? null : (JSON.parse(saved) as { verifier: string; state: string });
  if (pkce === null || pkce.state !== query.get('state')) throw new Error('Sign-in failed: the answer does not belong to this tab. Try again.');
  const response = await fetcher(`${hostedUi.domain}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: hostedUi.clientId,
      code: code ?? '',
      redirect_uri: redirectUri(env),
      code_verifier: pkce.verifier,
    }).toString(),
  });
  if (!response.ok) throw new Error(`Sign-in failed: the user pool answered ${response.status}.`);
  const tokens = (await response.json()) as { access_token?: string };
  if (typeof tokens.access_token !== 'string') throw new Error('Sign-in failed: no access token in the answer.');
  keepToken(env, tokens.access_token);
  return tokens.access_token;
}

/** The hosted UI's sign-out URL (it ends the user pool's own session too). */
export function hostedSignOutUrl(env: AuthEnvironment, hostedUi: NonNullable<WebConfig['hostedUi']>): string {
  return `${hostedUi.domain}/logout?${new URLSearchParams({ client_id: hostedUi.clientId, logout_uri: redirectUri(env) }).toString()}`;
}
