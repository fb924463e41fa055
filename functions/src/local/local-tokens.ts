/**
 * The local stack's tokens: HS256, signed with a secret kept in the local data folder.
 * Only `npm start`, `npm run token` and the tests import this; no Lambda bundle does.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { jwtVerify, SignJWT } from 'jose';
import { isValidOwner, MAX_OWNER_LENGTH } from '@panto/aws';
import { bearer, principal, rejected, REQUIRED_CLAIMS, type AuthVerifier } from '../auth/verifier.js';

/** Issuer and audience of the tokens the local stack signs. */
export const LOCAL_ISSUER = 'panto-local';
export const LOCAL_AUDIENCE = 'panto';

/** Verifies HS256 tokens signed with the local stack's secret (see {@link signLocalToken}); `exp` and `sub` required. */
export function hs256Verifier(secret: Uint8Array): AuthVerifier {
  return async ({ authorization }) => {
    const token = bearer(authorization);
    try {
      const { payload } = await jwtVerify(token, secret, {
        algorithms: ['HS256'],
        issuer: LOCAL_ISSUER,
        audience: LOCAL_AUDIENCE,
        requiredClaims: REQUIRED_CLAIMS,
      });
      return principal(payload.sub);
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
