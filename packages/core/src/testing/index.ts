/**
 * Test doubles and the store conformance suite, for panto's own tests and for embedders.
 * Importing `describeSessionStoreConformance` needs vitest.
 */
export { ScriptedProvider, type ScriptedProviderOptions, type ScriptedReply } from './scripted-provider.js';
export { CapturingStore } from './capturing-store.js';
export { describeSessionStoreConformance, type SessionStoreFactory } from './conformance.js';
export { everyKindOfMessage, RecordFactory, usage } from './fixtures.js';
export { FakeLLMServer, type FakeRawReply, type FakeReply, type RecordedRequest } from './fake-llm-server.js';
export { waitUntil, type WaitUntilOptions } from './wait-until.js';
