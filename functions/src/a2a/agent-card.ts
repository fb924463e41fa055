/**
 * The Agent Card (`GET /.well-known/agent-card.json`): what panto is to another agent — its
 * skill, the models a context may run on, where its JSON-RPC interface is, and how to
 * authenticate there (the deployment's own tokens: the OIDC issuer on AWS, the local stack's
 * HS256 bearer tokens locally).
 */
import type { AgentCard, SecurityScheme } from '@a2a-js/sdk';
import type { OfferedModels } from '../agent/offered-models.js';
import type { A2ASettings } from '../a2a-settings.js';
import { SERVICE_VERSION } from '../version.js';

/** The URI of the card's extension that lists the models a new context may choose. */
export const MODELS_EXTENSION = 'urn:panto:a2a:models';

/** The card, for an interface at `url`. */
export function agentCard(settings: A2ASettings, url: string, models: OfferedModels): AgentCard {
  const { name, scheme } = securityScheme(settings.issuer);
  const modelNames = models.providers.flatMap((provider) => provider.models.map((model) => `${provider.name}/${model.id}`));
  const fallback = `${models.default.provider}/${models.default.model}`;
  return {
    name: 'panto',
    description:
      'An agent runtime whose sessions persist themselves. Each context is a panto session of yours (a new context makes one); ' +
      'each task is one turn of it: the model answers, calling tools, and a tool that needs approval pauses the task in input-required.',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: SERVICE_VERSION,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        {
          uri: MODELS_EXTENSION,
          description: `The models a new context may choose with message metadata {"model": "provider/model"}; ${fallback} when it names none.`,
          required: false,
          params: { default: fallback, models: modelNames },
        },
      ],
    },
    securitySchemes: { [name]: scheme },
    securityRequirements: [{ schemes: { [name]: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [
      {
        id: 'session-turn',
        name: 'A turn of a persistent session',
        description:
          `Answers the message's text with the context's model (${modelNames.join(', ')}), using the deployment's tools; ` +
          'a later message in the same context sees the earlier ones. A tool call that needs approval waits for your "approve" or "deny".',
        tags: ['chat', 'tools', 'sessions', 'approvals'],
        examples: ['What changed in the last three messages?', 'Pay Bob 5 euros, then show the balance'],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['text/plain', 'application/json'],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

function securityScheme(issuer: string | undefined): { name: string; scheme: SecurityScheme } {
  if (issuer === undefined) {
    return {
      name: 'bearer',
      scheme: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { scheme: 'Bearer', bearerFormat: 'JWT', description: "The service's bearer tokens (the local stack's: npm run -s token -- <owner>)." },
        },
      },
    };
  }
  return {
    name: 'oidc',
    scheme: {
      scheme: {
        $case: 'openIdConnectSecurityScheme',
        value: {
          openIdConnectUrl: `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
          description: "A bearer token (JWT) of the deployment's issuer, as every route of the API takes.",
        },
      },
    },
  };
}
