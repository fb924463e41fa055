import { describe } from 'vitest';
import { describeAppendContract } from './append.js';
import { describeApprovalContract } from './approvals.js';
import { describeBranchContract, describeBranchIsolationContract } from './branches.js';
import { describeConcurrencyContract, describeTreeConcurrencyContract } from './concurrency.js';
import { describeDanglingPromptContract } from './dangling-prompt.js';
import { describeForkContract } from './fork.js';
import { describeLoadContract } from './load.js';
import { storeSuite, type SessionStoreFactory } from './suite.js';
import { describeTreeContract } from './tree.js';

export type { SessionStoreFactory } from './suite.js';

/**
 * The behaviour every SessionStore must have. Call it from a test file of your store:
 *
 * @example
 * describeSessionStoreConformance('MemoryStore', {
 *   create: async () => new MemoryStore(),
 *   reopen: async (store) => MemoryStore.open(store as MemoryStore),
 * });
 */
export function describeSessionStoreConformance(name: string, factory: SessionStoreFactory): void {
  describe(`${name} (SessionStore conformance)`, () => {
    const suite = storeSuite(factory);
    describeLoadContract(suite);
    describeAppendContract(suite);
    describeDanglingPromptContract(suite);
    describeApprovalContract(suite);
    describeConcurrencyContract(suite);
    describe('the tree', () => {
      describeBranchContract(suite);
      describeBranchIsolationContract(suite);
      describeTreeConcurrencyContract(suite);
      describeTreeContract(suite);
      describeForkContract(suite);
    });
  });
}
