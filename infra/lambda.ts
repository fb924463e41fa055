/**
 * How every function of the stack is built and run: Node 22 on arm64, an ESM bundle of the
 * workspace packages' TypeScript sources (the `@panto/source` condition), minified, and split
 * into chunks at its dynamic imports — so a cold start loads neither the provider SDKs (loaded
 * by the first turn) nor OpenTelemetry (loaded only when tracing is on). Packages' ESM builds
 * (`module`) are preferred to their CommonJS ones (`main`): the AWS SDK's ESM build is
 * tree-shaken and needs no CommonJS interop, which a cold start pays for at each import of a
 * CommonJS module. The same options as scripts/bundle.ts.
 */
export const LAMBDA = {
  runtime: 'nodejs22.x' as const,
  architecture: 'arm64' as const,
  nodejs: { format: 'esm' as const, minify: true, splitting: true, esbuild: { conditions: ['@panto/source'], mainFields: ['module', 'main'] } },
};

/**
 * `NODE_OPTIONS` of the functions that stream a session's JSONL to S3 (exports, archives):
 * `--expose-gc` lets them run a full collection after each 5 MB part, which lowers the peak
 * memory of a 50,000-message export from 175 to 153 MB (`npm run bench -- export`; see
 * `exposedGarbageCollector` in @panto/aws). Nothing else calls it.
 */
export const STREAMING_NODE_OPTIONS = { NODE_OPTIONS: '--expose-gc' };
