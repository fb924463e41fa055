/**
 * Where the page finds the API, fixed at build time: `VITE_PANTO_API_URL` (every route but the
 * streamed ones) and `VITE_PANTO_STREAM_URL` (the streamed ones) — on AWS the paths `/api` and
 * `/stream` of the page's own origin (the stage's Router), under `sst dev` the stage's URLs,
 * both empty for the local stack, which serves the page and the API from one origin — and, for
 * hosted-UI sign-in on AWS, the user pool's `VITE_PANTO_AUTH_DOMAIN` and `VITE_PANTO_AUTH_CLIENT_ID`.
 */
export interface WebConfig {
  /** Base URL (or path on this origin) of every route but the streamed ones, without a trailing `/`; `''`: this origin's root. */
  apiUrl: string;
  /** Base URL of `…/messages/stream` and `…/events`; `''`: this origin. */
  streamUrl: string;
  /** Hosted UI sign-in (authorization code with PKCE), when the build has a user pool domain and client. */
  hostedUi?: { domain: string; clientId: string };
}

const trim = (url: string | undefined): string => (url ?? '').trim().replace(/\/+$/, '');

export function webConfig(env: Record<string, string | undefined>): WebConfig {
  const apiUrl = trim(env.VITE_PANTO_API_URL);
  const streamUrl = trim(env.VITE_PANTO_STREAM_URL) || apiUrl;
  const domain = trim(env.VITE_PANTO_AUTH_DOMAIN);
  const clientId = (env.VITE_PANTO_AUTH_CLIENT_ID ?? '').trim();
  return { apiUrl, streamUrl, ...(domain && clientId ? { hostedUi: { domain, clientId } } : {}) };
}
