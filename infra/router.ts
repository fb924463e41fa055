/**
 * One origin for the stage: a CloudFront distribution (`sst.aws.Router`) with the web client at
 * `/`, the HTTP API at `/api` and the streaming function at `/stream` (web.ts adds the routes
 * once those exist). The page then calls its own origin — no CORS — and its URL is known while
 * the stack is built, so the sign-in callbacks (auth.ts) come from it in the same deploy.
 * Not under `sst dev`, where the page runs on your machine and calls the stage directly.
 */

/** The Router's cache key (and so what it forwards): the bearer token too, so one caller's answer is never another's. */
const CACHE_KEY_HEADERS = ['Authorization'];

export const router = $dev
  ? undefined
  : new sst.aws.Router('PantoRouter', {
      transform: {
        // CloudFront forwards Authorization only as part of the cache key (an origin request
        // policy may not name it); SST's policy keys on two headers of its own.
        cachePolicy: (args: aws.cloudfront.CachePolicyArgs) => {
          const parameters = args.parametersInCacheKeyAndForwardedToOrigin as aws.types.input.cloudfront.CachePolicyParametersInCacheKeyAndForwardedToOrigin;
          const headers = parameters.headersConfig as aws.types.input.cloudfront.CachePolicyParametersInCacheKeyAndForwardedToOriginHeadersConfig;
          const items = ((headers.headers as { items?: string[] } | undefined)?.items ?? []) as string[];
          headers.headerBehavior = 'whitelist';
          headers.headers = { items: [...items, ...CACHE_KEY_HEADERS.filter((name) => !items.includes(name))] };
        },
      },
    });

/** The path prefixes the Router serves the API and the stream under: what the page is built with. */
export const API_PATH = '/api';
export const STREAM_PATH = '/stream';
/** Where A2A clients look for an agent's card on its origin (the API serves it at the same path). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

/**
 * How the Router rewrites a path under `prefix` for its origin (`/api/sessions` → `/sessions`),
 * as a CloudFront function runs it: `uri.replace(new RegExp(regex), to)`.
 */
export function prefixRewrite(prefix: string): { regex: string; to: string } {
  return { regex: `^${prefix}/(.*)$`, to: '/$1' };
}

/**
 * CloudFront's wait for the origin's first byte, and between two packets of a stream: its most
 * without a quota increase. Above API Gateway's 30 s, so a synchronous turn (25 s) is never cut
 * here. A streamed turn that sends nothing for longer (a tool call running a minute or more) is
 * cut by CloudFront — the turn runs on and is kept; the stream's own URL has no such limit.
 */
export const ORIGIN_READ_TIMEOUT = '60 seconds' as const;
