import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Run workspace packages from their TypeScript sources (see each package's exports map).
    conditions: ['@panto/source', 'module', 'node', 'development|production'],
  },
  ssr: {
    resolve: {
      // No 'module': it resolves the AWS SDK to its bundler-only dist-es (extensionless imports Node cannot load).
      conditions: ['@panto/source', 'node', 'development|production'],
      externalConditions: ['@panto/source'],
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'functions/**/*.test.ts', 'web/src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // What a test waits for with expect.poll (a page's text, a process's state) may take more than
    // the default second on a loaded machine; a wait that is met returns at once.
    expect: { poll: { timeout: 5_000 } },
    globalSetup: ['test/setup/local-aws.ts', 'test/setup/web.ts', 'test/setup/sandbox.ts'],
  },
});
