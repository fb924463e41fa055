/**
 * Who is calling. The owner of a request is the `sub` of its JWT bearer token. Three ways
 * to establish it, one per deployment path:
 * - behind API Gateway, its JWT authorizer has verified the token: trust the claims it
 *   put in the event (still requiring `sub`);
 * - behind a Lambda function URL (the streaming route) nothing has: verify the token
 *   against the issuer's published keys;
 * - locally, verify an HS256 token signed with the local stack's own secret
 *   (`local/local-tokens.ts`, which only the local stack imports).
 * This module is the seam ({@link AuthVerifier}) and the rules every way shares; each way has
 * its own module (`api-gateway-verifier.ts`, `jwks-verifier.ts`).
 */
import { isValidOwner } from '@panto/aws/service';
import { errors as joseErrors } from 'jose';
import { unauthorized } from '../errors.js';

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

/**
 * Claims every token must carry. jose checks `exp` only when it is present: a validly signed
 * token without one would never expire. `sub` names the owner.
 */
export const REQUIRED_CLAIMS = ['exp', 'sub'];

/** The principal a token's `sub` names; 401 when it cannot name an owner. */
export function principal(sub: unknown): Principal {
  // A `sub` names an owner by @panto/aws's one rule for owners.
  if (!isValidOwner(sub)) throw unauthorized('the token has no usable sub');
  return { owner: sub };
}

/** The token of an `Authorization: Bearer …` header; 401 for anything else. */
export function bearer(authorization: string | undefined): string {
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(authorization ?? '');
  if (!match?.[1]) throw unauthorized(authorization ? 'the Authorization header is not a bearer token' : 'no Authorization header');
  return match[1];
}

/** A token jose refused is the caller's fault (401); anything else (the issuer's key endpoint is down) is not. */
export function rejected(error: unknown): unknown {
  return error instanceof joseErrors.JOSEError ? unauthorized(`token rejected: ${error.code}`, { cause: error }) : error;
}
