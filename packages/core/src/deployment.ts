/**
 * `@panto/core/deployment`: what the AWS deployment (sst.config.ts and infra/, through
 * `@panto/functions/deployment`) reads of the model catalog. Its export points at this
 * TypeScript source under every condition: SST bundles the config with esbuild, which compiles
 * TypeScript, so a fresh clone deploys without a build. Not for Node at run time.
 */
export { DEFAULT_BEDROCK_MODEL } from './providers/bedrock-models.js';
