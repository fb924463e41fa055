/** The verifier behind API Gateway: its JWT authorizer has verified the token already. */
import { unauthorized } from '../errors.js';
import { principal, type AuthVerifier } from './verifier.js';

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

/** A JWT NumericDate (seconds since the epoch) given as a number or a decimal string; else undefined. */
function numericDate(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : undefined;
}

function path(value: unknown, keys: readonly string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as { [key: string]: unknown })[key];
  }
  return current;
}
