import { describe } from 'vitest';
import { describeAbortContract } from './abort.js';
import { describeAgentFailureContract, describeAgentPersistenceContract } from './agent-loop.js';
import type { ConformanceServer, ProviderConformanceHarness } from './harness.js';
import { describeRequestMappingContract } from './request-mapping.js';
import { describeRetryContract } from './retries.js';
import { describeDroppedStreamContract, describeStreamErrorContract } from './stream-failures.js';
import { providerSuite, type ProviderSuite } from './suite.js';
import { describeTextStreamingContract } from './text-streaming.js';
import { describeRecordedToolCallsContract, describeToolCallAssemblyContract } from './tool-calls.js';
import { describeUsageContract } from './usage.js';

/**
 * The behaviour every Provider must have, run against the real provider over HTTP on a
 * fake server (FakeLLMServer, FakeBedrockServer — `harness.server`): streaming, tool calls, usage, stop reasons, error events, retries,
 * HTTP errors, dropped and silent streams, abort, the request body for each standard
 * conversation, and the agent loop on top. Call it from the provider's test file with a
 * harness for its wire; keep only what no other wire has in that file.
 *
 * @example
 * describeProviderConformance('AnthropicMessagesProvider', {
 *   name: 'anthropic',
 *   model: 'claude-test',
 *   server: FakeLLMServer,
 *   create: (server, options) => new AnthropicMessagesProvider({ model: 'claude-test', apiKey: 'k', baseURL: server.anthropicBaseURL, ...options }),
 *   wire: { path: '/v1/messages', streaming: { stream: true }, … },
 *   recorded: { text: { body: fixture('anthropic-text.sse'), usage: usage(25, 15) }, … },
 *   requests: { basic: { model: 'claude-test', max_tokens: 1024, … }, … },
 *   agent: { resumed: { … }, toolLoop: { … } },
 * });
 */
export function describeProviderConformance<Server extends ConformanceServer>(name: string, harness: ProviderConformanceHarness<Server>): void {
  describe(`${name} (Provider conformance)`, () => {
    const suite = providerSuite(harness) as unknown as ProviderSuite;
    describe('streaming', () => {
      describeTextStreamingContract(suite);
      describeRecordedToolCallsContract(suite);
      describeUsageContract(suite);
      describeToolCallAssemblyContract(suite);
    });
    describe('failures', () => {
      describeStreamErrorContract(suite);
      describeRetryContract(suite);
      describeDroppedStreamContract(suite);
    });
    describe('abort', () => {
      describeAbortContract(suite);
    });
    describe('request mapping (bodies as the fake server received them)', () => {
      describeRequestMappingContract(suite);
    });
    describe('in the agent loop', () => {
      describeAgentPersistenceContract(suite);
      describeAgentFailureContract(suite);
    });
  });
}
