/**
 * What a cold start loads: each Lambda handler bundled as sst.config.ts deploys it (split at
 * its dynamic imports) loads in a fresh Node process with only what SST links, and carries
 * none of the local stack (emulator clients and credentials, the HS256 signer and its secret
 * file, local settings, the API reference page) and none of the filesystem store's native lock
 * addon. OpenTelemetry is a chunk of its own that a cold start does not load: the bundled API
 * function runs a turn with that chunk deleted when tracing is off, and with it, exports the
 * turn's spans to an OTLP receiver when tracing is on. The MCP SDK, the provider SDKs and the
 * OpenAPI document are likewise chunks a cold start does not evaluate (by esbuild's metafile),
 * and the MCP chunk serves a turn that calls a configured server's tool; so are the
 * providers' own code, the JSONL export/import, the restore of archived sessions and the S3
 * client, which the handlers import through narrow subpaths rather than the packages' barrels
 * (a static import reaching any of them would put it back in the eager chunks).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { FakeLLMServer } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type BundleReport, bundleHandlers, HANDLERS, LAMBDA_LINKED_ENV } from '../scripts/bundle.js';
import { localAws, type LocalAws } from './setup/aws-fixtures.js';
import { startEverythingHTTP } from './mcp-harness.js';
import { OTLPReceiver } from './support/otlp-receiver.js';

const dir = await mkdtemp(join(tmpdir(), 'panto-bundles-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const run = promisify(execFile);

/** What SST puts in the functions' environment (see sst.config.ts `link:`). */
const LINKED_ENV = LAMBDA_LINKED_ENV;

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
/**
 * What a cold start must not evaluate, by the source files esbuild's metafile puts in each
 * chunk: each is in a chunk of its own that the handler imports when a request needs it.
 */
const LAZY_ONLY: Record<string, RegExp> = {
  'the MCP SDK (loaded by the first turn when servers are configured)': /^node_modules\/@modelcontextprotocol\/sdk\//,
  'Ajv, the MCP SDK’s validator': /^node_modules\/ajv\//,
  'the Anthropic SDK (loaded by its first turn)': /^node_modules\/@anthropic-ai\/sdk\//,
  'the OpenAI SDK (loaded by its first turn)': /^node_modules\/openai\//,
  'the Bedrock runtime client (loaded by its first turn)': /^node_modules\/@aws-sdk\/client-bedrock-runtime\//,
  'OpenTelemetry (loaded when tracing is on)': /^node_modules\/@opentelemetry\//,
  'the AI SDK’s stream helpers (loaded by the first chat request)': /^node_modules\/(ai|@ai-sdk\/[^/]+)\//,
  'the OpenAPI document, its route table and response schemas (loaded by GET /openapi.json)':
    /^functions\/src\/api\/(openapi|route-table|response-schemas)\.ts$/,
  // What the handlers' own graph keeps out by importing narrow subpaths (`@panto/core/agent-kit`,
  // `@panto/aws/service` …), not the barrels, and loading these with `import()` at first use:
  'the providers’ code (deferredProvider: loaded by the first turn)':
    /^packages\/core\/src\/providers\/(factory|anthropic-\w+|openai-\w+|bedrock|bedrock-request|bedrock-error|offline|message-assembler|wire-common|sdk-\w+)\.ts$/,
  'the MCP client (loaded by the first turn when servers are configured)':
    /^(packages\/core\/src\/mcp\/(servers|server-connection|result)|functions\/src\/agent\/service-mcp)\.ts$/,
  'the JSONL export and import, and fork’s writer (loaded by the first of them)': /^packages\/aws\/src\/(transfer\/|jsonl\/|s3\/multipart-writer\.ts$)/,
  'the S3 presigner (loaded by the first export)': /^node_modules\/@aws-sdk\/s3-request-presigner\//,
  'the restore of an archived session (loaded by the first one opened)': /^packages\/aws\/src\/archive\//,
  'the S3 client (deferredS3Client: built at the first S3 call)': /^node_modules\/@aws-sdk\/(client-s3|middleware-sdk-s3)\//,
};
/** Strings only OpenTelemetry's SDK and exporters hold: the batch processor's settings, the exporters' user agent. */
const OTEL_SDK = ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'OTel-OTLP-Exporter-JavaScript'];

let reports: BundleReport[];
beforeAll(async () => {
  reports = await bundleHandlers(HANDLERS, dir);
}, 120_000);

const read = async (files: readonly string[]): Promise<string> => (await Promise.all(files.map((file) => readFile(file, 'utf8')))).join('\n');

describe('the Lambda bundles', () => {
  it('carry no local-stack code, and load as Lambda loads them', { timeout: 60_000 }, async () => {
    expect(reports.map((report) => report.name).sort((a, b) => a.localeCompare(b))).toEqual(Object.keys(HANDLERS).sort((a, b) => a.localeCompare(b)));
    for (const report of reports) {
      const code = await read([...report.eager, ...report.lazy]);
      expect(
        LOCAL_ONLY.filter((marker) => code.includes(marker)),
        report.name,
      ).toEqual([]);
      // It loads, as Lambda loads it, and exports its handler; and every chunk it loads on demand loads too.
      const script = `
        globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };
        const mod = await import(${JSON.stringify(pathToFileURL(report.file).href)});
        for (const chunk of ${JSON.stringify(report.lazy.map((file) => pathToFileURL(file).href))}) await import(chunk);
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

  it('evaluate none of the heavy modules at a cold start: each is bundled in a chunk loaded on demand', () => {
    for (const name of ['api', 'stream']) {
      const report = reports.find((each) => each.name === name)!;
      for (const [what, pattern] of Object.entries(LAZY_ONLY)) {
        expect(
          report.eagerInputs.filter((input) => pattern.test(input)),
          `${name} loads ${what} at a cold start`,
        ).toEqual([]);
        expect(
          report.lazyInputs.some((input) => pattern.test(input)),
          `${name} bundles ${what} in a lazy chunk`,
        ).toBe(true);
      }
    }
  });

  it('load no OpenTelemetry at a cold start: the SDK is in a chunk only tracing imports', async () => {
    for (const name of ['api', 'stream']) {
      const report = reports.find((each) => each.name === name)!;
      const eager = await read(report.eager);
      expect(
        OTEL_SDK.filter((marker) => eager.includes(marker)),
        name,
      ).toEqual([]);
      const tracing = report.lazy.filter((file) => basename(file).startsWith('otel-tracing-'));
      expect(tracing, name).toHaveLength(1);
      const chunk = await read(tracing);
      for (const marker of OTEL_SDK) expect(chunk, name).toContain(marker);
    }
  });
});

describe('the bundled API function', () => {
  let aws: LocalAws;
  let fake: FakeLLMServer;
  let receiver: OTLPReceiver;
  beforeAll(async () => {
    [aws, fake, receiver] = await Promise.all([localAws('bundles'), FakeLLMServer.start(), OTLPReceiver.start()]);
  });
  afterAll(async () => {
    await Promise.all([fake?.close(), receiver?.close()]);
  });

  /** Runs `POST /sessions` and a turn through the bundle in a fresh process; the turn's status. */
  async function turnThroughBundle(bundle: string, env: Record<string, string>): Promise<string> {
    const event = (routeKey: string, rawPath: string, body: string) => ({
      version: '2.0',
      routeKey,
      rawPath,
      rawQueryString: '',
      headers: { 'content-type': 'application/json', host: 'api.example' },
      requestContext: {
        authorizer: { jwt: { claims: { sub: 'bundle-user', exp: String(Math.floor(Date.now() / 1000) + 600) } } },
        http: { method: 'POST', path: rawPath },
        requestId: 'r1',
        stage: '$default',
      },
      body,
      isBase64Encoded: false,
    });
    const script = `
      const { handler } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
      const created = await handler(${JSON.stringify(event('POST /sessions', '/sessions', '{}'))});
      const id = JSON.parse(created.body).id;
      const turn = ${JSON.stringify(event('POST /sessions/{id}/messages', '/sessions/ID/messages', '{"text":"hello"}'))};
      turn.rawPath = turn.requestContext.http.path = '/sessions/' + id + '/messages';
      process.stdout.write(String((await handler(turn)).statusCode));
      // A warm process keeps its MCP connections open; Lambda freezes it, this one ends.
      process.exit(0);`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        PATH: process.env.PATH,
        ...LINKED_ENV,
        SST_RESOURCE_PantoTable: JSON.stringify({ name: aws.tableName }),
        SST_RESOURCE_PantoBucket: JSON.stringify({ name: aws.bucket }),
        AWS_ENDPOINT_URL_DYNAMODB: inject('dynamoEndpoint'),
        AWS_ENDPOINT_URL_S3: inject('s3Endpoint'),
        AWS_ACCESS_KEY_ID: 'S3RVER',
        AWS_SECRET_ACCESS_KEY: 'S3RVER',
        ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
        PANTO_MODEL: 'claude-test',
        POWERTOOLS_LOG_LEVEL: 'ERROR',
        ...env,
      },
    });
    return stdout.trim().split('\n').at(-1) ?? '';
  }

  it('exports a turn’s spans from its OpenTelemetry chunk when tracing is on', { timeout: 60_000 }, async () => {
    fake.enqueue({ text: 'Traced from the bundle.', usage: { input: 3, output: 4 } });
    expect(await turnThroughBundle(reports.find((each) => each.name === 'api')!.file, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint })).toBe('200');
    expect(receiver.spans.map((span) => span.name)).toEqual(expect.arrayContaining(['POST /sessions/{id}/messages', 'invoke_agent panto', 'chat claude-test']));
  });

  it('runs a turn without that chunk when tracing is off', { timeout: 60_000 }, async () => {
    const report = reports.find((each) => each.name === 'api')!;
    for (const file of report.lazy.filter((each) => basename(each).startsWith('otel-tracing-'))) await rm(file);
    fake.enqueue({ text: 'Untraced.', usage: { input: 3, output: 4 } });
    expect(await turnThroughBundle(report.file, {})).toBe('200');
    // With the chunk gone, asking for tracing fails at load: it is the chunk tracing imports.
    await expect(turnThroughBundle(report.file, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint })).rejects.toThrow(/otel-tracing-/);
  });

  it('loads the MCP SDK from its chunk for a turn that uses a configured server’s tool', { timeout: 60_000 }, async () => {
    const everything = await startEverythingHTTP();
    try {
      fake.enqueue({ toolCalls: [{ id: 'toolu_b1', name: 'mcp__everything__echo', input: { message: 'from the bundle' } }] }, { text: 'Echoed.' });
      const servers = JSON.stringify({ mcpServers: { everything: { url: everything.url } } });
      const report = reports.find((each) => each.name === 'api')!;
      expect(await turnThroughBundle(report.file, { SST_RESOURCE_MCPServers: JSON.stringify({ value: servers }) })).toBe('200');
      // The model was offered the server's tools, and its echo came back as the tool's result.
      const [offered, answered] = fake.requests.slice(-2);
      expect(JSON.stringify(offered?.body)).toContain('mcp__everything__echo');
      expect(JSON.stringify(answered?.body)).toContain('Echo: from the bundle');
    } finally {
      await everything.stop();
    }
  });
});
