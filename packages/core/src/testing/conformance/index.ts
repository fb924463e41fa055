/**
 * `@panto/core/testing/conformance`: the contract suites, which need vitest — one folder a
 * seam (session stores, providers, extension hosts), one module an area of its contract.
 */
export { describeSessionStoreConformance, type SessionStoreFactory } from './session-store/index.js';
export { describeProviderConformance } from './provider/index.js';
export {
  describeExtensionHostConformance,
  type ExtensionHostHarness,
  type ExtensionHostRun,
  type ExtensionHostRunSetup,
} from './extension-host/index.js';
export type {
  ConformanceServer,
  ExpectedAgentRequests,
  ExpectedRequests,
  ProviderConformanceHarness,
  ProviderConformanceOptions,
  RecordedResponses,
  WireFacts,
} from './provider/harness.js';
