/**
 * The local stack's tokens: HS256, signed with a secret kept in the local data folder.
 * Only `npm start`, `npm run token` and the tests import this; no Lambda bundle does.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { jwtVerify, SignJWT } from 'jose';
import { isValidOwner, MAX_OWNER_LENGTH } from '@panto/aws';
import { bearer, principal, rejected, REQUIRED_CLAIMS, type AuthVerifier, type Principal } from '../auth/verifier.js';

/** Issuer and audience of the tokens the local stack signs. */
export const LOCAL_ISSUER = 'panto-local';
export const LOCAL_AUDIENCE = 'panto';

/** How many verified tokens {@link hs256Verifier} remembers (a browser or script sends the same one request after request). */
const VERIFIED_TOKENS = 256;

/**
 * Verifies HS256 tokens signed with the local stack's secret (see {@link signLocalToken}); `exp` and `sub` required.
 *
 * The key is imported once, and a token that verified is remembered (the last
 * `VERIFIED_TOKENS`) until its `exp`: the same bytes verify the same way, so a client that
 * sends its token with every request pays for one verification, not one a request — as API
 * Gateway's JWT authorizer caches on AWS. Verifying took about 3% of the local server's CPU per turn.
 */
export function hs256Verifier(secret: Uint8Array): AuthVerifier {
  const key = crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  // A key that cannot be imported fails each request (where it is awaited), not the process.
  key.catch(() => {});
  const verified = new Map<string, { principal: Principal; expiresAt: number }>();
  return async ({ authorization }) => {
    const token = bearer(authorization);
    const known = verified.get(token);
    if (known !== undefined && Date.now() < known.expiresAt) return known.principal;
    verified.delete(token);
    try {
      const { payload } = await jwtVerify(token, await key, {
        algorithms: ['HS256'],
        issuer: LOCAL_ISSUER,
        audience: LOCAL_AUDIENCE,
        requiredClaims: REQUIRED_CLAIMS,
      });
      const who = principal(payload.sub);
      verified.set(token, { principal: who, expiresAt: (payload.exp ?? 0) * 1000 });
      if (verified.size > VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
      return who;
    } catch (error) {
      throw rejected(error);
    }
  };
}

/**
 * Signs a token for `owner` that the local stack accepts.
 *
 * @example
 * const token = await signLocalToken(await readLocalSecret(dataDir), 'alice');
 */
export async function signLocalToken(secret: Uint8Array, owner: string, expiresIn: string = '30d'): Promise<string> {
  if (!isValidOwner(owner)) throw new RangeError(`an owner is 1–${MAX_OWNER_LENGTH} characters without control characters`);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(owner)
    .setIssuer(LOCAL_ISSUER)
    .setAudience(LOCAL_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(secret);
}

/**
 * The local stack's signing secret, kept in `file` (created, readable by the user only,
 * the first time). Concurrent first calls agree on one secret.
 */
export async function readLocalSecret(file: string): Promise<Uint8Array> {
  try {
    return decodeSecret(await readFile(file, 'utf8'));
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  await mkdir(dirname(file), { recursive: true });
  try {
    await writeFile(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EEXIST')) throw error;
  }
  return decodeSecret(await readFile(file, 'utf8'));
}

function decodeSecret(text: string): Uint8Array {
  const secret = Buffer.from(text.trim(), 'base64url');
  if (secret.length < 32) throw new Error('the local auth secret is shorter than 32 bytes; delete it to make a new one');
  return new Uint8Array(secret);
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}
