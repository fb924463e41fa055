/**
 * The web client (web/): built with the API's and the streaming function's URLs, and the
 * user pool's hosted UI when it has a domain, then served from S3 behind CloudFront. Under
 * `sst dev` it is not deployed: its Vite dev server runs on your machine, on the local
 * stack's origin (which CORS and sign-in allow, settings.ts and auth.ts).
 */
import { api } from './api';
import { identity } from './auth';
import { DEV_PORT } from './settings';
import { streamFunction } from './stream';

export const web = new sst.aws.StaticSite('PantoWeb', {
  path: 'web',
  build: { command: 'npm run build', output: 'dist' },
  environment: {
    VITE_PANTO_API_URL: api.url,
    VITE_PANTO_STREAM_URL: streamFunction.url,
    ...(identity.hostedUi ? { VITE_PANTO_AUTH_DOMAIN: identity.hostedUi.domain, VITE_PANTO_AUTH_CLIENT_ID: identity.hostedUi.clientId } : {}),
  },
  dev: { command: `npm run dev -- --port ${DEV_PORT} --strictPort`, url: `http://127.0.0.1:${DEV_PORT}` },
});
