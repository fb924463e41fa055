import { describe } from 'vitest';
import { describeFailureContract } from './failures.js';
import { describeHeadlessContract } from './headless.js';
import { describeRegistrationContract } from './registrations.js';
import type { ExtensionHostHarness } from './suite.js';

export type { ExtensionHostHarness, ExtensionHostRun, ExtensionHostRunSetup } from './suite.js';

/**
 * The behaviour every extension host must have (the CLI is one): what an extension
 * registers reaches the agent and the user, a guard's refusal reaches the model, and an
 * extension that fails — loading or later — is reported and changes nothing else. Call it
 * from a test file of your host.
 *
 * @example
 * describeExtensionHostConformance('panto CLI', { run: (setup) => runCliWith(setup) });
 */
export function describeExtensionHostConformance(name: string, harness: ExtensionHostHarness): void {
  describe(`${name} (extension host conformance)`, () => {
    describeRegistrationContract(harness);
    describeFailureContract(harness);
    describeHeadlessContract(harness);
  });
}
