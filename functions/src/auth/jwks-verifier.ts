/** The verifier behind a Lambda function URL: nothing has verified the token, so it does, against the issuer's keys. */
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { IssuerSettings } from '../config.js';
import { unauthorized } from '../errors.js';
import { bearer, principal, rejected, REQUIRED_CLAIMS, type AuthVerifier } from './verifier.js';

/** Asymmetric algorithms an identity provider signs with; never HS* or `none`. */
const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * Verifies the bearer token against the issuer's JWKS, as API Gateway's JWT authorizer
 * would: signature, `iss`, expiry (`exp` required), `sub`, and the audience in `aud` or
 * (Cognito access tokens) `client_id`. The key set is fetched once and cached across requests
 * (built with the first request; a malformed `jwksUrl` still throws here, at once).
 */
export function jwksVerifier(settings: IssuerSettings): AuthVerifier {
  const url = new URL(settings.jwksUrl);
  // Built by the first request: the key set's HTTP headers load Node's fetch (undici), which
  // a cold start need not evaluate before it has a token to verify.
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  return async ({ authorization }) => {
    const token = bearer(authorization);
    keys ??= createRemoteJWKSet(url);
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
