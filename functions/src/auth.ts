/**
 * Who is calling. The owner of a request is the `sub` of its JWT bearer token. Three ways
 * to establish it, one per deployment path:
 * - behind API Gateway, its JWT authorizer has verified the token: trust the claims it
 *   put in the event (still requiring `sub`);
 * - behind a Lambda function URL (the streaming route) nothing has: verify the token
 *   against the issuer's published keys;
 * - locally, verify an HS256 token signed with the local stack's own secret
 *   (`local/auth.ts`, which only the local stack imports).
 */
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { IssuerSettings } from './config.js';
import { unauthorized } from './errors.js';

export interface Principal {
  /** The token's `sub`: sessions belong to it. */
  owner: string;
}

/** What a verifier may look at. */
export interface AuthRequest {
  /** The `Authorization` header, if any. */
  authorization: string | undefined;
  /** The Lambda event behind the request (API Gateway v2 / function URL), when there is one. */
  lambdaEvent: unknown;
}

/**
 * Establishes the caller. Contract: resolves with the principal, or rejects with a 401
 * `RequestError` (from `unauthorized`); never rejects with anything else for bad input.
 */
export type AuthVerifier = (request: AuthRequest) => Promise<Principal>;

/** Asymmetric algorithms an identity provider signs with; never HS* or `none`. */
const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * Claims every token must carry. jose checks `exp` only when it is present: a validly signed
 * token without one would never expire. `sub` names the owner.
 */
export const REQUIRED_CLAIMS = ['exp', 'sub'];

/**
 * Trusts the claims API Gateway's JWT authorizer verified and put in
 * `requestContext.authorizer.jwt.claims`. Only for functions that API Gateway alone invokes.
 * Still requires what every verifier requires: an `exp` in the future (API Gateway passes
 * claims as strings: `"exp": "1773146600"`) and a usable `sub`.
 *
 * @example
 * export const handler = handle(createApp({ ...deps, verifier: apiGatewayVerifier() }));
 */
export function apiGatewayVerifier(options: { now?: () => number } = {}): AuthVerifier {
  const now = options.now ?? Date.now;
  return async ({ lambdaEvent }) => {
    const claims = path(lambdaEvent, ['requestContext', 'authorizer', 'jwt', 'claims']);
    if (claims === undefined) throw unauthorized('the event carries no JWT authorizer claims');
    const expiresAt = numericDate(path(claims, ['exp']));
    if (expiresAt === undefined) throw unauthorized('the claims carry no usable exp');
    if (expiresAt * 1000 <= now()) throw unauthorized('the token has expired');
    return principal(path(claims, ['sub']));
  };
}

/**
 * Verifies the bearer token against the issuer's JWKS, as API Gateway's JWT authorizer
 * would: signature, `iss`, expiry (`exp` required), `sub`, and the audience in `aud` or
 * (Cognito access tokens) `client_id`. The key set is fetched once and cached across requests.
 */
export function jwksVerifier(settings: IssuerSettings): AuthVerifier {
  const keys = createRemoteJWKSet(new URL(settings.jwksUrl));
  return async ({ authorization }) => {
    const token = bearer(authorization);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: settings.issuer,
        algorithms: ASYMMETRIC_ALGORITHMS,
        requiredClaims: REQUIRED_CLAIMS,
      }));
    } catch (error) {
      throw rejected(error);
    }
    const audiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    if (!audiences.includes(settings.audience) && payload.client_id !== settings.audience) {
      throw unauthorized('the token is for another audience');
    }
    return principal(payload.sub);
  };
}

export const MAX_OWNER_LENGTH = 256;

export function isOwner(sub: unknown): sub is string {
  return typeof sub === 'string' && sub !== '' && sub.length <= MAX_OWNER_LENGTH && !/[\u0000-\u001f\u007f]/.test(sub);
}

export function principal(sub: unknown): Principal {
  if (!isOwner(sub)) throw unauthorized('the token has no usable sub');
  return { owner: sub };
}

/** A JWT NumericDate (seconds since the epoch) given as a number or a decimal string; else undefined. */
function numericDate(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : undefined;
}

export function bearer(authorization: string | undefined): string {
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(authorization ?? '');
  if (!match?.[1]) throw unauthorized(authorization ? 'the Authorization header is not a bearer token' : 'no Authorization header');
  return match[1];
}

/** A token jose refused is the caller's fault (401); anything else (the issuer's key endpoint is down) is not. */
export function rejected(error: unknown): unknown {
  return error instanceof joseErrors.JOSEError ? unauthorized(`token rejected: ${error.code}`, { cause: error }) : error;
}

function path(value: unknown, keys: readonly string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as { [key: string]: unknown })[key];
  }
  return current;
}
