/**
 * Who may call the API: an identity provider of your own (PANTO_JWT_ISSUER,
 * PANTO_JWT_AUDIENCE, PANTO_JWT_JWKS_URL), or else a Cognito user pool the stack creates —
 * with the hosted UI's sign-in for a browser client when PANTO_AUTH_CALLBACK_URLS are set.
 * API Gateway's JWT authorizer (api.ts) and the streaming function (stream.ts, through the
 * `PantoAuth` link) trust the same issuer and audience. The web client's own URL — the
 * Router's (router.ts), known while the stack is built — is a sign-in callback and logout URL
 * from the first deploy on: one deploy, and the page signs in through the hosted UI.
 */
import { router } from './router';
import { list } from '@panto/functions/deployment';
import { DEV_ORIGINS } from './settings';

export interface Identity {
  issuer: string | $util.Output<string>;
  audience: string | $util.Output<string>;
  /** What `npm run user` / `npm run token -- --stage` read from .sst/outputs.json. */
  outputs: Record<string, unknown>;
  /** The hosted UI the web client signs in through (authorization code + PKCE), when there is one. */
  hostedUi?: { domain: string | $util.Output<string>; clientId: string | $util.Output<string> };
}

/** An identity provider of your own: its issuer, and the audience its tokens carry (`aud`, or Cognito's `client_id`). */
function ownIssuer(issuer: string): Identity {
  const audience = process.env.PANTO_JWT_AUDIENCE;
  if (!audience) throw new Error('Set PANTO_JWT_AUDIENCE with PANTO_JWT_ISSUER (see sst.config.ts), or unset both to use a Cognito user pool.');
  return { issuer: issuer.replace(/\/+$/, ''), audience, outputs: {} };
}

/**
 * A Cognito user pool whose users an operator adds (`npm run user -- add alice`; nobody signs
 * up by themselves), and its public app client: password sign-in for the operator's token
 * command (ADMIN_USER_PASSWORD_AUTH needs AWS credentials), SRP and refresh for apps, and —
 * with a hosted-UI domain (PANTO_AUTH_DOMAIN_PREFIX) or PANTO_AUTH_CALLBACK_URLS — the hosted
 * UI's authorization code flow (PKCE) for the web client at the Router's URL and those URLs.
 */
function cognito(production: boolean): Identity {
  const domainPrefix = process.env.PANTO_AUTH_DOMAIN_PREFIX;
  const userPool = new sst.aws.CognitoUserPool('PantoUserPool', {
    ...(domainPrefix ? { domain: { prefix: domainPrefix } } : {}),
    transform: {
      userPool: (args: aws.cognito.UserPoolArgs) => {
        args.adminCreateUserConfig = { allowAdminCreateUserOnly: true };
        args.deletionProtection = production ? 'ACTIVE' : 'INACTIVE';
      },
    },
  });
  // The page's own URL (the Router's), the operator's, and under `sst dev` the local stack's.
  const pageUrls = [...(router ? [$interpolate`${router.url}/`] : []), ...($dev ? DEV_ORIGINS.map((origin) => `${origin}/`) : [])];
  const callbackUrls = [...pageUrls, ...list(process.env.PANTO_AUTH_CALLBACK_URLS)];
  const logoutUrls = [...pageUrls, ...list(process.env.PANTO_AUTH_LOGOUT_URLS)];
  const hostedUi = Boolean(domainPrefix) || list(process.env.PANTO_AUTH_CALLBACK_URLS).length > 0 || $dev;
  const client = userPool.addClient('PantoClient', {
    ...(hostedUi ? { callbackUrls } : {}),
    transform: {
      client: (args: aws.cognito.UserPoolClientArgs) => {
        args.explicitAuthFlows = ['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'];
        args.generateSecret = false;
        args.preventUserExistenceErrors = 'ENABLED';
        if (hostedUi) {
          args.allowedOauthFlows = ['code'];
          args.allowedOauthScopes = ['openid', 'email', 'profile'];
          args.logoutUrls = logoutUrls;
        } else {
          // No browser client configured: no hosted-UI sign-in at all (SST's default would allow one to https://example.com).
          args.allowedOauthFlowsUserPoolClient = false;
          delete args.allowedOauthFlows;
          delete args.allowedOauthScopes;
          delete args.callbackUrls;
        }
      },
    },
  });
  return {
    issuer: $interpolate`https://cognito-idp.${aws.getRegionOutput().region}.amazonaws.com/${userPool.id}`,
    audience: client.id,
    outputs: {
      userPool: userPool.id,
      userPoolClient: client.id,
      ...(domainPrefix ? { authDomain: userPool.domainUrl } : {}),
    },
    // `domainUrl` is there only when the pool has a domain (PANTO_AUTH_DOMAIN_PREFIX).
    ...(hostedUi && userPool.domainUrl !== undefined ? { hostedUi: { domain: userPool.domainUrl, clientId: client.id } } : {}),
  };
}

export const identity = process.env.PANTO_JWT_ISSUER ? ownIssuer(process.env.PANTO_JWT_ISSUER) : cognito($app.protect);

/** The issuer the streaming function verifies tokens against itself (a function URL has no authorizer). */
export const authLink = new sst.Linkable('PantoAuth', {
  properties: {
    issuer: identity.issuer,
    audience: identity.audience,
    jwksUrl: process.env.PANTO_JWT_JWKS_URL ?? $interpolate`${identity.issuer}/.well-known/jwks.json`,
  },
});
