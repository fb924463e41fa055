import { describe, expect, it } from 'vitest';
import { finishHostedSignIn, forgetToken, hostedSignInUrl, keepToken, takeToken, tokenChanged, tokenProblem, type AuthEnvironment } from './auth.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');

function jwt(claims: object): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.signature`;
}

const storageOf = (map: Map<string, string>): AuthEnvironment['storage'] => ({
  getItem: (key) => map.get(key) ?? null,
  setItem: (key, value) => void map.set(key, value),
  removeItem: (key) => void map.delete(key),
});

/** A page at `url`: `stored` is the browser's storage (local storage), `tabStored` the tab's own (session storage). */
function environment(url: string): AuthEnvironment & { stored: Map<string, string>; tabStored: Map<string, string>; replaced: string[] } {
  const parsed = new URL(url);
  const stored = new Map<string, string>();
  const tabStored = new Map<string, string>();
  const replaced: string[] = [];
  return {
    location: { href: parsed.href, origin: parsed.origin, pathname: parsed.pathname, search: parsed.search, hash: parsed.hash },
    history: { replaceState: (_data, _unused, next) => void replaced.push(String(next)) },
    storage: storageOf(stored),
    tabStorage: storageOf(tabStored),
    now: () => NOW,
    stored,
    tabStored,
    replaced,
  };
}

const valid = jwt({ sub: 'alice', exp: NOW / 1000 + 3600 });

describe('takeToken', () => {
  it('takes the token from the #token= fragment, keeps it for the browser (local storage) and removes it from the address bar', () => {
    const env = environment(`http://127.0.0.1:3000/#token=${valid}`);
    expect(takeToken(env)).toBe(valid);
    expect(env.stored.get('panto.token')).toBe(valid);
    expect(env.replaced).toEqual(['/']);
  });

  it('keeps the rest of the fragment when it removes the token', () => {
    const env = environment(`http://127.0.0.1:3000/?x=1#token=${valid}&session=abc`);
    takeToken(env);
    expect(env.replaced).toEqual(['/?x=1#session=abc']);
  });

  it('uses the stored token on a reload, and drops one that has expired', () => {
    const env = environment('http://127.0.0.1:3000/');
    env.stored.set('panto.token', valid);
    expect(takeToken(env)).toBe(valid);
    env.stored.set('panto.token', jwt({ sub: 'alice', exp: NOW / 1000 - 1 }));
    expect(takeToken(env)).toBeNull();
    expect(env.stored.has('panto.token')).toBe(false);
  });
});

describe('signing out, in every tab', () => {
  it('forgets the token for the browser; a refused token only while no other tab replaced it', () => {
    const env = environment('http://127.0.0.1:3000/');
    keepToken(env, valid);
    const newer = jwt({ sub: 'alice', exp: NOW / 1000 + 7200 });
    // This tab's token was refused, but another tab signed in again meanwhile: that sign-in stays.
    env.stored.set('panto.token', newer);
    forgetToken(env, valid);
    expect(env.stored.get('panto.token')).toBe(newer);
    forgetToken(env, newer);
    expect(env.stored.has('panto.token')).toBe(false);
    keepToken(env, valid);
    forgetToken(env);
    expect(env.stored.has('panto.token')).toBe(false);
  });

  it("reads another tab's sign-out, sign-in and cleared storage from a storage event, and ignores other keys", () => {
    expect(tokenChanged({ key: 'panto.token', newValue: null }, NOW)).toBeNull();
    expect(tokenChanged({ key: 'panto.token', newValue: valid }, NOW)).toBe(valid);
    expect(tokenChanged({ key: 'panto.token', newValue: jwt({ sub: 'a', exp: NOW / 1000 - 1 }) }, NOW)).toBeNull();
    expect(tokenChanged({ key: null, newValue: null }, NOW)).toBeNull();
    expect(tokenChanged({ key: 'panto.theme', newValue: 'dark' }, NOW)).toBeUndefined();
  });
});

describe('tokenProblem', () => {
  it('refuses what is not a JWT and a token past its exp', () => {
    expect(tokenProblem('hello', NOW)).toMatch(/not a token/);
    expect(tokenProblem(jwt({ sub: 'a', exp: NOW / 1000 }), NOW)).toMatch(/expired/);
    expect(tokenProblem(valid, NOW)).toBeNull();
  });
});

describe('hosted UI sign-in', () => {
  const hostedUi = { domain: 'https://panto.auth.eu-west-1.amazoncognito.com', clientId: 'client123' };

  it('sends the browser to /oauth2/authorize with an S256 challenge of the verifier it keeps', async () => {
    const env = environment('https://chat.example.com/');
    const url = new URL(await hostedSignInUrl(env, hostedUi));
    expect(url.origin + url.pathname).toBe(`${hostedUi.domain}/oauth2/authorize`);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('redirect_uri')).toBe('https://chat.example.com/');
    // The verifier is the tab's: the answer must come back to the tab that asked.
    expect(env.stored.has('panto.pkce')).toBe(false);
    const { verifier, state } = JSON.parse(env.tabStored.get('panto.pkce') ?? '{}') as { verifier: string; state: string };
    const digest = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))).toString('base64url');
    expect(url.searchParams.get('code_challenge')).toBe(digest);
    expect(url.searchParams.get('state')).toBe(state);
  });

  it('exchanges the code with the verifier and keeps the access token', async () => {
    const env = environment('https://chat.example.com/?code=the-code&state=s1');
    env.tabStored.set('panto.pkce', JSON.stringify({ verifier: 'v1', state: 's1' }));
    const requests: { url: string; body: string }[] = [];
    const fetcher = (async (url: string, init: RequestInit) => {
      requests.push({ url, body: String(init.body) });
      return new Response(JSON.stringify({ access_token: valid, id_token: 'id' }), { status: 200 });
    }) as typeof fetch;
    expect(await finishHostedSignIn(env, hostedUi, fetcher)).toBe(valid);
    expect(requests[0]?.url).toBe(`${hostedUi.domain}/oauth2/token`);
    expect(Object.fromEntries(new URLSearchParams(requests[0]?.body))).toEqual({
      grant_type: 'authorization_code',
      client_id: 'client123',
      code: 'the-code',
      redirect_uri: 'https://chat.example.com/',
      code_verifier: 'v1',
    });
    expect(env.stored.get('panto.token')).toBe(valid);
    expect(env.replaced).toEqual(['https://chat.example.com/']);
  });

  it('refuses an answer whose state is not this tab’s, without calling the user pool', async () => {
    const env = environment('https://chat.example.com/?code=c&state=other');
    env.tabStored.set('panto.pkce', JSON.stringify({ verifier: 'v1', state: 's1' }));
    let called = false;
    const fetcher = (async () => {
      called = true;
      return new Response('{}');
    }) as typeof fetch;
    await expect(finishHostedSignIn(env, hostedUi, fetcher)).rejects.toThrow(/does not belong to this tab/);
    expect(called).toBe(false);
    expect(env.stored.has('panto.token')).toBe(false);
  });
});
