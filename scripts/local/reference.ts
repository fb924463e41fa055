/**
 * The local stack's interactive API reference: Swagger UI (npm `swagger-ui-dist`, files
 * served from node_modules — no CDN, no network) on `/reference`, reading the API's own
 * `/openapi.json`. Only `npm start` serves it; no Lambda bundle holds it.
 *
 * `/reference#token=<jwt>` (the link `npm start` prints) fills in the bearer token, so "Try it
 * out" works at once.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';

const require = createRequire(import.meta.url);

/** The files of swagger-ui-dist the page loads, and their types: nothing else is served from it. */
const ASSETS: { [file: string]: string } = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>panto API reference</title>
  <link rel="stylesheet" href="/reference/swagger-ui.css">
  <link rel="icon" type="image/png" href="/reference/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/reference/swagger-ui-bundle.js"></script>
  <script src="/reference/init.js"></script>
</body>
</html>
`;

/**
 * The token is read before Swagger UI starts: with deep linking on, it rewrites the fragment
 * to the operation shown (`#/sessions/get_sessions`) as it renders, and a token read once the
 * spec has loaded is gone by then. It leaves the address bar at once, as the web client's
 * does, and stays in the tab's session storage, so a reload keeps the reference signed in.
 */
const INIT = `const KEY = 'panto.reference.token';
const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get('token') || sessionStorage.getItem(KEY);
if (fragment.has('token')) {
  sessionStorage.setItem(KEY, fragment.get('token'));
  history.replaceState(null, '', location.pathname + location.search);
}
window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  onComplete: () => {
    if (token) window.ui.preauthorizeApiKey('bearer', token);
  },
});
`;

/**
 * `api` with the reference pages in front: `/reference` and its files here, every other
 * request to `api` untouched.
 *
 * @example
 * serve({ fetch: withReference(app).fetch, port: 3000 });
 */
export function withReference(api: { fetch: (request: Request) => Response | Promise<Response> }): Hono {
  const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
  const page = new Hono();
  const headers = { 'cache-control': 'no-cache' };
  page.get('/reference', (c) => c.html(PAGE, 200, headers));
  page.get('/reference/init.js', (c) => c.body(INIT, 200, { ...headers, 'content-type': 'text/javascript; charset=utf-8' }));
  page.get('/reference/:file', async (c) => {
    const file = c.req.param('file');
    const type = ASSETS[file];
    if (type === undefined) return c.notFound();
    return c.body(new Uint8Array(await readFile(join(dist, file))), 200, { 'content-type': type, 'cache-control': 'max-age=3600' });
  });
  page.all('*', (c) => api.fetch(c.req.raw));
  return page;
}
