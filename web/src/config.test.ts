import { describe, expect, it } from 'vitest';
import { webConfig } from './config.js';

describe('webConfig', () => {
  it('calls the page’s own origin when the build names no API (the local stack)', () => {
    expect(webConfig({})).toEqual({ apiUrl: '', streamUrl: '' });
  });

  it('reads the API and streaming URLs without their trailing slash, and the hosted UI only with both its settings', () => {
    expect(
      webConfig({
        VITE_PANTO_API_URL: 'https://abc.execute-api.eu-west-1.amazonaws.com/',
        VITE_PANTO_STREAM_URL: 'https://xyz.lambda-url.eu-west-1.on.aws/',
        VITE_PANTO_AUTH_DOMAIN: 'https://panto.auth.eu-west-1.amazoncognito.com',
        VITE_PANTO_AUTH_CLIENT_ID: 'client123',
      }),
    ).toEqual({
      apiUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com',
      streamUrl: 'https://xyz.lambda-url.eu-west-1.on.aws',
      hostedUi: { domain: 'https://panto.auth.eu-west-1.amazoncognito.com', clientId: 'client123' },
    });
    expect(webConfig({ VITE_PANTO_AUTH_DOMAIN: 'https://panto.auth.eu-west-1.amazoncognito.com' })).not.toHaveProperty('hostedUi');
  });

  it('keeps paths on the page’s own origin as they are (the Router’s /api and /stream)', () => {
    expect(webConfig({ VITE_PANTO_API_URL: '/api', VITE_PANTO_STREAM_URL: '/stream/' })).toEqual({ apiUrl: '/api', streamUrl: '/stream' });
  });

  it('streams from the API when no streaming URL is given', () => {
    expect(webConfig({ VITE_PANTO_API_URL: 'https://api.example.com' }).streamUrl).toBe('https://api.example.com');
  });
});
