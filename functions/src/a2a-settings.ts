/** How this deployment speaks A2A: what the Agent Card says of its interface and its tokens (read on AWS from the stack's settings). */
import { Resource } from 'sst/resource';

/** How this deployment speaks A2A: what the Agent Card says (see `AppDeps.a2a`). */
export interface A2ASettings {
  /**
   * The absolute URL of the JSON-RPC interface the card names (`PANTO_A2A_URL`; on AWS the
   * stage's `/stream/a2a`, since it streams). When absent, the origin the card was asked for
   * plus `/a2a` — right for the local stack, which is reached directly, never through a cache.
   */
  url?: string;
  /** The OpenID Connect issuer whose tokens the deployment takes; absent: bearer JWTs only (the local stack's). */
  issuer?: string;
}

/**
 * What the Agent Card says on AWS: the JSON-RPC interface at `PANTO_A2A_URL` (the stack sets
 * it: the stage's `/stream/a2a`) and the issuer both functions trust (linked as `PantoAuth`).
 * The URL is never taken from the request there: the card is cached behind CloudFront. (The
 * `PantoAuth` link is declared with the others in config.ts.) Read by the handlers, which pass it to `serviceApp`.
 */
export function lambdaA2A(env: { readonly PANTO_A2A_URL?: string | undefined } = process.env): A2ASettings {
  const url = env.PANTO_A2A_URL || undefined;
  if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) throw new Error(`PANTO_A2A_URL: ${JSON.stringify(url)} is not an http(s) URL`);
  return { issuer: Resource.PantoAuth.issuer, ...(url === undefined ? {} : { url }) };
}
