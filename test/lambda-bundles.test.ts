/**
 * What a cold start loads: each Lambda handler bundled as sst.config.ts deploys it loads in
 * a fresh Node process with only what SST links, and carries none of the local stack
 * (emulator clients and credentials, the HS256 signer and its secret file, local settings,
 * the API reference page) and none of the filesystem store's native lock addon.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleHandlers, HANDLERS } from '../scripts/bundle.js';

const dir = await mkdtemp(join(tmpdir(), 'panto-bundles-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const run = promisify(execFile);

/** What SST puts in the functions' environment (see sst.config.ts `link:`). */
const LINKED_ENV = {
  SST_RESOURCE_App: JSON.stringify({ name: 'panto', stage: 'test' }),
  SST_RESOURCE_PantoTable: JSON.stringify({ name: 'panto-test' }),
  SST_RESOURCE_PantoBucket: JSON.stringify({ name: 'panto-test' }),
  SST_RESOURCE_AnthropicApiKey: JSON.stringify({ value: 'test-key' }),
  SST_RESOURCE_OpenAIApiKey: JSON.stringify({ value: '' }),
  SST_RESOURCE_MCPServers: JSON.stringify({ value: '' }),
  SST_RESOURCE_PantoAuth: JSON.stringify({ issuer: 'https://issuer.example/', audience: 'panto', jwksUrl: 'https://issuer.example/jwks' }),
  AWS_REGION: 'us-east-1',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** Strings only the local stack's code holds (minification keeps string literals). */
const LOCAL_ONLY = [
  'S3RVER',
  'panto-local',
  'auth-secret',
  'PANTO_DYNAMODB_ENDPOINT',
  'PANTO_S3_ENDPOINT',
  'PANTO_DATA_DIR',
  'fs-native-extensions',
  'swagger-ui',
];

describe('the Lambda bundles', () => {
  it('carry no local-stack code', { timeout: 60_000 }, async () => {
    const reports = await bundleHandlers(HANDLERS, dir);
    expect(reports.map((report) => report.name).sort((a, b) => a.localeCompare(b))).toEqual(Object.keys(HANDLERS).sort((a, b) => a.localeCompare(b)));
    for (const report of reports) {
      const code = await readFile(report.file, 'utf8');
      expect(
        LOCAL_ONLY.filter((marker) => code.includes(marker)),
        report.name,
      ).toEqual([]);
      // It loads, as Lambda loads it, and exports its handler.
      const script = `
        globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };
        const mod = await import(${JSON.stringify(pathToFileURL(report.file).href)});
        process.stdout.write(typeof mod.handler);`;
      const loaded = await run(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, ...LINKED_ENV } }).catch(
        (error: { stderr?: string }) => ({
          stdout: `failed: ${
            String(error.stderr)
              .split('\n')
              .find((line) => /^\w*Error: /.test(line)) ?? ''
          }`,
        }),
      );
      expect(loaded.stdout, report.name).toBe('function');
    }
  });
});
