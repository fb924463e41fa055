/**
 * The web client (web/) and the stage's one origin: the Router (router.ts) serves the page's
 * static files at `/` from S3, the HTTP API at `/api` and the streaming function at `/stream`
 * (each path rewritten to the origin's own: `/api/sessions` → `/sessions`), and the A2A Agent
 * Card at `/.well-known/agent-card.json` (the API's, unchanged), so the page is
 * built with those paths and calls its own origin. Under `sst dev` it is not deployed: its
 * Vite dev server runs on your machine, on the local stack's origin (which CORS and sign-in
 * allow, settings.ts and auth.ts), and calls the stage's URLs directly.
 */
import { api } from './api';
import { identity } from './auth';
import { AGENT_CARD_PATH, API_PATH, ORIGIN_READ_TIMEOUT, prefixRewrite, router, STREAM_PATH } from './router';
import { DEV_PORT } from './settings';
import { streamFunction } from './stream';

if (router) {
  router.route(API_PATH, api.url, { rewrite: prefixRewrite(API_PATH), readTimeout: ORIGIN_READ_TIMEOUT });
  router.route(STREAM_PATH, streamFunction.url, { rewrite: prefixRewrite(STREAM_PATH), readTimeout: ORIGIN_READ_TIMEOUT });
  // The A2A Agent Card where A2A clients look for it: the origin's own well-known path.
  router.route(AGENT_CARD_PATH, api.url, { readTimeout: ORIGIN_READ_TIMEOUT });
}

export const web = new sst.aws.StaticSite('PantoWeb', {
  path: 'web',
  build: { command: 'npm run build', output: 'dist' },
  ...(router ? { router: { instance: router } } : {}),
  environment: {
    VITE_PANTO_API_URL: router ? API_PATH : api.url,
    VITE_PANTO_STREAM_URL: router ? STREAM_PATH : streamFunction.url,
    ...(identity.hostedUi ? { VITE_PANTO_AUTH_DOMAIN: identity.hostedUi.domain, VITE_PANTO_AUTH_CLIENT_ID: identity.hostedUi.clientId } : {}),
  },
  dev: { command: `npm run dev -- --port ${DEV_PORT} --strictPort`, url: `http://127.0.0.1:${DEV_PORT}` },
});
