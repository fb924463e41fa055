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
