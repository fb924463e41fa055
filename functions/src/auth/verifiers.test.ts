import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiGatewayVerifier } from './api-gateway-verifier.js';
import { jwksVerifier } from './jwks-verifier.js';
import type { AuthVerifier } from './verifier.js';
import { hs256Verifier, LOCAL_AUDIENCE, LOCAL_ISSUER, readLocalSecret, signLocalToken } from '../local/local-tokens.js';
import { RequestError } from '../errors.js';

const SECRET = new Uint8Array(32).fill(7);

async function rejection(verifier: AuthVerifier, authorization: string | undefined, lambdaEvent?: unknown): Promise<unknown> {
  return verifier({ authorization, lambdaEvent }).then(
    () => 'accepted',
    (error: unknown) => error,
  );
}

function expectUnauthorized(error: unknown): void {
  expect(error).toBeInstanceOf(RequestError);
  expect((error as RequestError).status).toBe(401);
  expect((error as RequestError).code).toBe('unauthorized');
}

describe('hs256Verifier (local stack)', () => {
  const verifier = hs256Verifier(SECRET);

  it('accepts a token from signLocalToken and returns its sub as the owner', async () => {
    const token = await signLocalToken(SECRET, 'alice');
    await expect(verifier({ authorization: `Bearer ${token}`, lambdaEvent: undefined })).resolves.toEqual({ owner: 'alice' });
  });

  it('rejects a missing header, a non-bearer header and a malformed token with 401', async () => {
    expectUnauthorized(await rejection(verifier, undefined));
    expectUnauthorized(await rejection(verifier, 'Basic YWxpY2U6c2VjcmV0'));
    expectUnauthorized(await rejection(verifier, 'Bearer not.a.jwt'));
    expectUnauthorized(await rejection(verifier, 'Bearer '));
  });

  it('rejects a token signed with another secret (forged)', async () => {
    const forged = await signLocalToken(new Uint8Array(32).fill(9), 'alice');
    expectUnauthorized(await rejection(verifier, `Bearer ${forged}`));
  });

  it('rejects an expired token', async () => {
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuer(LOCAL_ISSUER)
      .setAudience(LOCAL_AUDIENCE)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(SECRET);
    expectUnauthorized(await rejection(verifier, `Bearer ${expired}`));
  });

  it('remembers a token it verified only until the token expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 11, 7, 12) });
    try {
      const fresh = hs256Verifier(SECRET);
      const token = await signLocalToken(SECRET, 'alice', '1h');
      await expect(fresh({ authorization: `Bearer ${token}`, lambdaEvent: undefined })).resolves.toEqual({ owner: 'alice' });
      await expect(fresh({ authorization: `Bearer ${token}`, lambdaEvent: undefined })).resolves.toEqual({ owner: 'alice' });
      vi.setSystemTime(Date.UTC(2026, 11, 7, 13, 0, 1));
      expectUnauthorized(await rejection(fresh, `Bearer ${token}`));
      // A token that failed is not remembered as good, and a forged one never is.
      const forged = await signLocalToken(new Uint8Array(32).fill(9), 'alice', '1h');
      expectUnauthorized(await rejection(fresh, `Bearer ${forged}`));
      expectUnauthorized(await rejection(fresh, `Bearer ${forged}`));
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects alg none and HS512 even with the right secret', async () => {
    const unsigned = new UnsecuredJWT({}).setSubject('alice').setIssuer(LOCAL_ISSUER).setAudience(LOCAL_AUDIENCE).encode();
    expectUnauthorized(await rejection(verifier, `Bearer ${unsigned}`));
    const hs512 = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject('alice')
      .setIssuer(LOCAL_ISSUER)
      .setAudience(LOCAL_AUDIENCE)
      .setExpirationTime('1h')
      .sign(new Uint8Array(64).fill(7));
    expectUnauthorized(await rejection(hs256Verifier(new Uint8Array(64).fill(7)), `Bearer ${hs512}`));
  });

  it('rejects a token for another issuer or audience, and one without sub', async () => {
    const sign = (build: (jwt: SignJWT) => SignJWT): Promise<string> =>
      build(new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h')).sign(SECRET);
    const otherIssuer = await sign((jwt) => jwt.setSubject('alice').setIssuer('elsewhere').setAudience(LOCAL_AUDIENCE));
    const otherAudience = await sign((jwt) => jwt.setSubject('alice').setIssuer(LOCAL_ISSUER).setAudience('other'));
    const noSub = await sign((jwt) => jwt.setIssuer(LOCAL_ISSUER).setAudience(LOCAL_AUDIENCE));
    for (const token of [otherIssuer, otherAudience, noSub]) expectUnauthorized(await rejection(verifier, `Bearer ${token}`));
  });

  it('rejects a validly signed token without exp, which would never expire', async () => {
    const forever = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setIssuer(LOCAL_ISSUER)
      .setAudience(LOCAL_AUDIENCE)
      .setIssuedAt()
      .sign(SECRET);
    expectUnauthorized(await rejection(verifier, `Bearer ${forever}`));
  });

  it('refuses to sign for an empty owner', async () => {
    await expect(signLocalToken(SECRET, '')).rejects.toThrow(RangeError);
  });
});

describe('apiGatewayVerifier', () => {
  const NOW = Date.parse('2026-03-10T12:00:00.000Z');
  const verifier = apiGatewayVerifier({ now: () => NOW });
  const event = (claims: unknown): unknown => ({ requestContext: { authorizer: { jwt: { claims, scopes: null } } } });
  /** An hour after NOW, as API Gateway passes it: a string. */
  const exp = String(NOW / 1000 + 3600);

  it("returns the sub of the authorizer's claims", async () => {
    await expect(verifier({ authorization: undefined, lambdaEvent: event({ sub: 'user-1', iss: 'x', exp }) })).resolves.toEqual({
      owner: 'user-1',
    });
    await expect(verifier({ authorization: undefined, lambdaEvent: event({ sub: 'user-2', exp: NOW / 1000 + 1 }) })).resolves.toEqual({
      owner: 'user-2',
    });
  });

  it('rejects claims without exp, with an exp that is not a time, or one that has passed', async () => {
    for (const claims of [
      { sub: 'user-1' },
      { sub: 'user-1', exp: '' },
      { sub: 'user-1', exp: 'tomorrow' },
      { sub: 'user-1', exp: null },
      { sub: 'user-1', exp: String(NOW / 1000) },
      { sub: 'user-1', exp: String(NOW / 1000 - 60) },
    ]) {
      expectUnauthorized(await rejection(verifier, undefined, event(claims)));
    }
  });

  it('rejects an event without claims, even with a token that would verify elsewhere', async () => {
    const token = await signLocalToken(SECRET, 'alice');
    expectUnauthorized(await rejection(verifier, `Bearer ${token}`, { requestContext: {} }));
    expectUnauthorized(await rejection(verifier, `Bearer ${token}`, undefined));
  });

  it('rejects claims without a usable sub', async () => {
    for (const claims of [{ exp }, { sub: '', exp }, { sub: 42, exp }, { sub: 'a\nb', exp }, { sub: 'x'.repeat(257), exp }]) {
      expectUnauthorized(await rejection(verifier, undefined, event(claims)));
    }
  });
});

describe('jwksVerifier (streaming function URL)', () => {
  const issuer = 'https://issuer.example/';
  const audience = 'panto-api';
  let server: Server;
  let jwksUrl: string;
  let privateKey: CryptoKey;
  let publicJwk: JWK;
  let fetches = 0;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' };
    server = createServer((_request, response) => {
      fetches++;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [publicJwk] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const sign = (claims: Record<string, unknown>, key: CryptoKey | Uint8Array = privateKey, alg = 'RS256'): Promise<string> =>
    new SignJWT(claims).setProtectedHeader({ alg, kid: 'key-1' }).setIssuer(issuer).setExpirationTime('1h').sign(key);

  it("accepts a token signed with the issuer's key for the audience, and caches the key set", async () => {
    const verifier = jwksVerifier({ issuer, audience, jwksUrl });
    const before = fetches;
    for (const sub of ['u-1', 'u-2']) {
      const token = await sign({ sub, aud: audience });
      await expect(verifier({ authorization: `Bearer ${token}`, lambdaEvent: undefined })).resolves.toEqual({ owner: sub });
    }
    expect(fetches - before).toBe(1);
  });

  it('accepts a Cognito access token whose client_id is the audience', async () => {
    const verifier = jwksVerifier({ issuer, audience, jwksUrl });
    const token = await sign({ sub: 'u-3', client_id: audience, token_use: 'access' });
    await expect(verifier({ authorization: `Bearer ${token}`, lambdaEvent: undefined })).resolves.toEqual({ owner: 'u-3' });
  });

  it('rejects another audience, another issuer, an unknown key and an HS256 token keyed with the public key', async () => {
    const verifier = jwksVerifier({ issuer, audience, jwksUrl });
    const otherAudience = await sign({ sub: 'u', aud: 'someone-else' });
    const otherIssuer = await new SignJWT({ sub: 'u', aud: audience })
      .setProtectedHeader({ alg: 'RS256', kid: 'key-1' })
      .setIssuer('https://evil.example/')
      .setExpirationTime('1h')
      .sign(privateKey);
    const strangerKey = (await generateKeyPair('RS256')).privateKey;
    const unknownKey = await sign({ sub: 'u', aud: audience }, strangerKey);
    const confused = await sign({ sub: 'u', aud: audience }, new TextEncoder().encode(JSON.stringify(publicJwk)), 'HS256');
    for (const token of [otherAudience, otherIssuer, unknownKey, confused]) {
      expectUnauthorized(await rejection(verifier, `Bearer ${token}`));
    }
  });

  it('rejects a validly signed token without exp, or without sub', async () => {
    const verifier = jwksVerifier({ issuer, audience, jwksUrl });
    const forever = await new SignJWT({ sub: 'u', aud: audience }).setProtectedHeader({ alg: 'RS256', kid: 'key-1' }).setIssuer(issuer).sign(privateKey);
    const nobody = await sign({ aud: audience });
    for (const token of [forever, nobody]) expectUnauthorized(await rejection(verifier, `Bearer ${token}`));
  });

  it('trusts no authorizer claims in the event: the token alone decides', async () => {
    const verifier = jwksVerifier({ issuer, audience, jwksUrl });
    const event = { requestContext: { authorizer: { jwt: { claims: { sub: 'mallory' } } } } };
    expectUnauthorized(await rejection(verifier, undefined, event));
  });
});

describe('readLocalSecret', () => {
  it('creates the secret once, readable by the user only, and returns the same bytes after', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'panto-secret-'));
    try {
      const file = join(dir, 'nested', 'auth-secret');
      const [first, concurrent] = await Promise.all([readLocalSecret(file), readLocalSecret(file)]);
      expect(first.length).toBeGreaterThanOrEqual(32);
      expect(concurrent).toEqual(first);
      expect(await readLocalSecret(file)).toEqual(first);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
