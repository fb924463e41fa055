/**
 * What a cold start loads: each Lambda handler bundled as sst.config.ts deploys it carries
 * none of the local stack (emulator clients and credentials, the HS256 signer and its
 * secret file, local settings, the API reference page) and none of the filesystem store's
 * native lock addon.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleHandlers, HANDLERS } from '../scripts/bundle.js';

const dir = await mkdtemp(join(tmpdir(), 'panto-bundles-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Strings only the local stack's code holds (minification keeps string literals). */
const LOCAL_ONLY = ['S3RVER', 'panto-local', 'auth-secret', 'PANTO_DYNAMODB_ENDPOINT', 'PANTO_S3_ENDPOINT', 'PANTO_DATA_DIR', 'fs-native-extensions', 'swagger-ui'];

describe('the Lambda bundles', () => {
  it('carry no local-stack code', { timeout: 60_000 }, async () => {
    const reports = await bundleHandlers(HANDLERS, dir);
    expect(reports.map((report) => report.name).sort()).toEqual(Object.keys(HANDLERS).sort());
    for (const report of reports) {
      const code = await readFile(report.file, 'utf8');
      expect(LOCAL_ONLY.filter((marker) => code.includes(marker)), report.name).toEqual([]);
    }
  });
});
