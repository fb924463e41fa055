/**
 * Test doubles, for panto's own tests and for embedders: a scripted provider, a capturing
 * store, a fake LLM server, a fake Bedrock Runtime server, record fixtures, a manual clock and `waitUntil`. Nothing here imports a test
 * runner; the conformance suites, which need vitest, are `@panto/core/testing/conformance`.
 */
export { ScriptedProvider, type ScriptedProviderOptions, type ScriptedReply } from './scripted-provider.js';
export { CapturingStore } from './capturing-store.js';
export { everyKindOfMessage, RecordFactory, usage } from './fixtures.js';
export { FakeLLMServer } from './fake-llm/server.js';
export type { FakeRawReply, FakeReply, RecordedRequest } from './fake-llm/types.js';
export {
  FAKE_BEDROCK_CREDENTIALS,
  FakeBedrockServer,
  type BedrockRecordedRequest,
  type FakeBedrockServerOptions,
} from './fake-bedrock/server.js';
export { BEDROCK_STREAM_HEADERS, encodeEventStream, type BedrockStreamEvent } from './fake-bedrock/frames.js';
export type { FakeAWSCredentials } from './fake-bedrock/sigv4.js';
export { ManualClock } from './manual-clock.js';
export { waitUntil, type WaitUntilOptions } from './wait-until.js';
