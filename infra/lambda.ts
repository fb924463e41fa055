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
 * The memory size of the functions that serve turns (api, stream), in MB: the smallest
 * 128 MB step at least twice the highest peak RSS measured of what they do. The highest is
 * 204 MB — the bundled api handler after 200 warm turns on a 2,000-message session
 * (`npm run bench -- lambda-memory`; most of it garbage V8 had no reason to collect yet:
 * what a turn leaves behind is about 6 KB), above a 20,000-message restore (187 MB) and a
 * 50,000-message export (153 MB, `npm run bench -- export`). Twice 204 MB is 408 MB: 512.
 * docs/deploy.md (Costs) says what it costs per 1,000 turns.
 */
export const API_MEMORY_MB = 512;

/**
 * `NODE_OPTIONS` of the functions that stream a session's JSONL to S3 (exports, archives):
 * `--expose-gc` lets them run a full collection after each 5 MB part, which lowers the peak
 * memory of a 50,000-message export from 175 to 153 MB (`npm run bench -- export`; see
 * `exposedGarbageCollector` in @panto/aws). Nothing else calls it.
 */
export const STREAMING_NODE_OPTIONS = { NODE_OPTIONS: '--expose-gc' };
