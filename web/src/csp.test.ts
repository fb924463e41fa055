import { describe, expect, it } from 'vitest';
import { webConfig } from './config.js';
import { contentSecurityPolicy } from './csp.js';

describe('contentSecurityPolicy', () => {
  it('allows scripts from the page’s own files only, and requests to its own origin on the local stack and behind the Router', () => {
    for (const env of [{}, { VITE_PANTO_API_URL: '/api', VITE_PANTO_STREAM_URL: '/stream' }]) {
      const policy = contentSecurityPolicy(webConfig(env));
      expect(policy).toContain("script-src 'self';");
      expect(policy).toContain("connect-src 'self';");
      expect(policy).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
    }
  });

  it('adds the origins of the API, the streaming URL and the user pool a build names', () => {
    const policy = contentSecurityPolicy(
      webConfig({
        VITE_PANTO_API_URL: 'https://abc.execute-api.eu-west-1.amazonaws.com/',
        VITE_PANTO_STREAM_URL: 'https://xyz.lambda-url.eu-west-1.on.aws/stream',
        VITE_PANTO_AUTH_DOMAIN: 'https://panto.auth.eu-west-1.amazoncognito.com',
        VITE_PANTO_AUTH_CLIENT_ID: 'client123',
      }),
    );
    expect(policy).toContain(
      "connect-src 'self' https://abc.execute-api.eu-west-1.amazonaws.com https://xyz.lambda-url.eu-west-1.on.aws https://panto.auth.eu-west-1.amazoncognito.com;",
    );
  });
});
