import { describe, expect, it } from 'vitest';
import { lambdaA2A } from './a2a-settings.js';

describe('lambdaA2A', () => {
  it('names the issuer SST links as PantoAuth and the interface the stack sets, and refuses a URL that is none', () => {
    Object.assign(process.env, {
      SST_RESOURCE_App: JSON.stringify({ name: 'panto', stage: 'test' }),
      SST_RESOURCE_PantoAuth: JSON.stringify({ issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/pool', audience: 'a', jwksUrl: 'https://i/jwks' }),
    });
    expect(lambdaA2A({ PANTO_A2A_URL: 'https://d111.cloudfront.net/stream/a2a' })).toEqual({
      issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/pool',
      url: 'https://d111.cloudfront.net/stream/a2a',
    });
    // Unset (or empty): the card names the origin it was asked at.
    expect(lambdaA2A({ PANTO_A2A_URL: '' })).toEqual({ issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/pool' });
    expect(() => lambdaA2A({ PANTO_A2A_URL: 'javascript:alert(1)' })).toThrow(/PANTO_A2A_URL/);
  });
});
