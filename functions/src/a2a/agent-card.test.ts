import { AgentCard } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { agentCard } from './agent-card.js';

const MODELS = {
  default: { provider: 'bedrock', model: 'us.amazon.nova-pro-v1:0' },
  providers: [{ name: 'bedrock', default_model: 'us.amazon.nova-pro-v1:0', models: [{ id: 'us.amazon.nova-pro-v1:0', status: null }], any_model: false }],
};

describe('the Agent Card', () => {
  it('names the OpenID Connect issuer of a deployment as its security scheme, and the interface it is given', () => {
    const card = AgentCard.toJSON(
      agentCard({ issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/pool/' }, 'https://d1.cloudfront.net/stream/a2a', MODELS),
    ) as {
      supportedInterfaces: unknown[];
      securitySchemes: unknown;
      securityRequirements: unknown;
      capabilities: { extensions: { params: unknown }[] };
    };
    expect(card.supportedInterfaces).toEqual([{ url: 'https://d1.cloudfront.net/stream/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
    expect(card.securitySchemes).toEqual({
      oidc: {
        openIdConnectSecurityScheme: {
          openIdConnectUrl: 'https://cognito-idp.eu-west-1.amazonaws.com/pool/.well-known/openid-configuration',
          description: expect.any(String),
        },
      },
    });
    expect(card.securityRequirements).toEqual([{ schemes: { oidc: {} } }]);
    expect(card.capabilities.extensions[0]?.params).toEqual({ default: 'bedrock/us.amazon.nova-pro-v1:0', models: ['bedrock/us.amazon.nova-pro-v1:0'] });
  });
});
