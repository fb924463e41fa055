/**
 * sst.config.ts, run against recording stand-ins for SST's globals ($config, sst.*, aws.*):
 * every route reaches an exported handler behind the JWT authorizer, every function (the
 * table's stream subscriber too) links what its code reads, and the table and bucket are
 * configured as the service needs.
 * (`npm run check:sst` type-checks the same file against SST's real types.)
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createApp, DEFAULT_LIMITS, ttlExpiredSessionId, type DynamoDBStreamRecord } from '@panto/functions';
import { hs256Verifier } from '@panto/functions/local';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

type Args = { [key: string]: unknown };
interface Resource {
  kind: string;
  name: string;
  args: Args;
  /** What linking it gives a function (`Resource.<name>`). */
  link: Args;
}
interface Route {
  route: string;
  handler: unknown;
  args: Args;
}

const resources: Resource[] = [];
/** Each stand-in instance, to the resource it recorded (what a `link:` entry refers to). */
const instances = new Map<object, Resource>();
const routes: Route[] = [];
const authorizers: { id: string; args: Args }[] = [];
interface Subscription {
  table: string;
  name: string;
  /** The function it creates (SST makes one from function args). */
  fn: Resource;
  args: Args;
}
const subscriptions: Subscription[] = [];

/** A stand-in for a Pulumi output: a string that names what it stands for. */
const output = (what: string): string => `\${${what}}`;

function record(instance: object, resource: Resource): void {
  resources.push(resource);
  instances.set(instance, resource);
}

function standIn(kind: string, link: (name: string, args: Args) => Args, extra: (name: string) => Args = () => ({})) {
  return class {
    constructor(name: string, args: Args = {}) {
      record(this, { kind, name, args, link: link(name, args) });
      Object.assign(this, { name: output(`${name}.name`), ...extra(name) });
    }
  };
}

function installStandIns(): void {
  const Dynamo = class extends standIn('sst.aws.Dynamo', (name) => ({ name: `${name}-table` })) {
    readonly #table: Resource;
    constructor(name: string, args: Args = {}) {
      super(name, args);
      this.#table = instances.get(this)!;
    }
    subscribe(name: string, subscriber: Args, args: Args = {}): void {
      // SST refuses to subscribe to a table without a stream, and builds a function from function args.
      if (!this.#table.args.stream) throw new Error(`Cannot subscribe to "${this.#table.name}" because stream is not enabled.`);
      if (typeof subscriber !== 'object') throw new Error('expected function args, not an ARN or a bare handler');
      const fnName = `${this.#table.name}Subscriber${name}`;
      const fn: Resource = { kind: 'sst.aws.Function', name: fnName, args: subscriber, link: {} };
      resources.push(fn);
      subscriptions.push({ table: this.#table.name, name, fn, args });
    }
  };
  const Bucket = standIn('sst.aws.Bucket', (name) => ({ name: `${name}-bucket` }));
  const Fn = standIn('sst.aws.Function', () => ({}), (name) => ({ arn: output(`${name}.arn`), url: output(`${name}.url`) }));
  const Secret = class {
    constructor(name: string, placeholder?: string) {
      record(this, { kind: 'sst.Secret', name, args: { placeholder }, link: { value: '' } });
    }
  };
  const Linkable = class {
    constructor(name: string, definition: { properties: Args }) {
      record(this, { kind: 'sst.Linkable', name, args: definition, link: definition.properties });
    }
  };
  const Api = class {
    readonly url = output('PantoApi.url');
    constructor(name: string, args: Args = {}) {
      record(this, { kind: 'sst.aws.ApiGatewayV2', name, args, link: {} });
    }
    addAuthorizer(args: Args): { id: string } {
      const authorizer = { id: output(`authorizer:${String(args.name)}.id`), args };
      authorizers.push(authorizer);
      return authorizer;
    }
    route(route: string, handler: unknown, args: Args = {}): void {
      routes.push({ route, handler, args });
    }
  };
  const Encryption = standIn('aws.s3.BucketServerSideEncryptionConfiguration', () => ({}));
  Object.assign(globalThis, {
    $config: (config: unknown) => config,
    $app: { name: 'panto', stage: 'test' },
    sst: { Secret, Linkable, aws: { Dynamo, Bucket, Function: Fn, ApiGatewayV2: Api } },
    aws: { s3: { BucketServerSideEncryptionConfiguration: Encryption } },
  });
}

interface SstConfig {
  app(input: { stage: string }): Args;
  run(): Promise<Args>;
}

let config: SstConfig;
let outputs: Args;

beforeAll(async () => {
  installStandIns();
  process.env.PANTO_JWT_ISSUER = 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_TEST';
  process.env.PANTO_JWT_AUDIENCE = 'panto-client';
  // A path, not a literal specifier: the config is type-checked by `npm run check:sst`, against SST's types.
  config = ((await import(pathToFileURL(join(root, 'sst.config.ts')).href)) as { default: SstConfig }).default;
  outputs = await config.run();
});

const byKind = (kind: string): Resource[] => resources.filter((resource) => resource.kind === kind);
const functionByArn = (arn: unknown): Resource | undefined =>
  byKind('sst.aws.Function').find((fn) => output(`${fn.name}.arn`) === arn);
/** The resources a function links, as recorded. */
function linksOf(fn: Resource): Resource[] {
  return (fn.args.link as object[]).map((link) => {
    const resource = instances.get(link);
    if (!resource) throw new Error(`${fn.name} links something that is not a resource`);
    return resource;
  });
}

/** Whether a stream record passes a Lambda event filter pattern (the part of its syntax the config uses: lists of values). */
function passes(pattern: unknown, value: unknown): boolean {
  if (Array.isArray(pattern)) return pattern.includes(value);
  if (typeof pattern !== 'object' || pattern === null) return false;
  return Object.entries(pattern).every(([key, inner]) =>
    passes(inner, typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined),
  );
}

/** Imports a handler in a fresh Node process whose environment holds only `links`, as SST would set it. */
async function importHandler(handler: string, links: readonly Resource[]): Promise<{ ok: boolean; output: string }> {
  const dot = handler.lastIndexOf('.');
  const file = join(root, `${handler.slice(0, dot)}.ts`);
  const exported = handler.slice(dot + 1);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    AWS_REGION: 'us-east-1',
    SST_RESOURCE_App: JSON.stringify({ name: 'panto', stage: 'test' }),
  };
  for (const link of links) env[`SST_RESOURCE_${link.name}`] = JSON.stringify(link.link);
  const script = `
    globalThis.awslambda = { streamifyResponse: (f) => f, HttpResponseStream: { from: (s) => s } };
    const mod = await import(${JSON.stringify(pathToFileURL(file).href)});
    console.log(typeof mod[${JSON.stringify(exported)}]);`;
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--conditions=@panto/source', '--input-type=module', '-e', script], {
      cwd: root,
      env,
    });
    return { ok: stdout.trim() === 'function', output: stdout };
  } catch (error) {
    return { ok: false, output: String((error as { stderr?: string }).stderr ?? error) };
  }
}

describe('sst.config.ts', () => {
  it('retains everything in production and removes other stages', () => {
    expect(config.app({ stage: 'production' })).toMatchObject({ name: 'panto', home: 'aws', removal: 'retain', protect: true });
    expect(config.app({ stage: 'dev' })).toMatchObject({ removal: 'remove', protect: false });
  });

  it("routes every one of the app's routes but the stream through API Gateway, each behind the JWT authorizer", () => {
    const app = createApp({
      dynamo: {} as never,
      tableName: 't',
      s3: {} as never,
      bucket: 'b',
      providers: () => {
        throw new Error('not called');
      },
      verifier: hs256Verifier(new Uint8Array(32)),
      limits: DEFAULT_LIMITS,
    });
    const appRoutes = app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`)
      .filter((route) => route !== 'POST /sessions/{id}/messages/stream');
    expect(routes.map((route) => route.route).sort()).toEqual([...new Set(appRoutes)].sort());

    expect(authorizers).toHaveLength(1);
    const [authorizer] = authorizers;
    expect(authorizer?.args).toEqual({
      name: expect.any(String),
      jwt: { issuer: process.env.PANTO_JWT_ISSUER, audiences: [process.env.PANTO_JWT_AUDIENCE] },
    });
    for (const route of routes) {
      expect(route.args.auth, route.route).toEqual({ jwt: { authorizer: authorizer?.id } });
      const fn = functionByArn(route.handler);
      expect(fn?.args.handler, route.route).toBe('functions/src/handlers/api.handler');
    }
  });

  it('serves the streaming route from a function with response streaming behind its own URL', () => {
    const stream = byKind('sst.aws.Function').find((fn) => fn.args.handler === 'functions/src/handlers/stream.handler');
    expect(stream?.args).toMatchObject({ streaming: true, url: { authorization: 'none' }, timeout: '15 minutes' });
    expect(outputs.stream).toBe(output(`${stream?.name}.url`));
  });

  it('runs every function on nodejs22.x, bundled from the workspace sources', () => {
    const functions = byKind('sst.aws.Function');
    expect(functions.map((fn) => fn.args.handler).sort()).toEqual([
      'functions/src/handlers/api.handler',
      'functions/src/handlers/stream.handler',
      'functions/src/handlers/ttl-cleanup.handler',
    ]);
    for (const fn of functions) {
      expect(fn.args).toMatchObject({ runtime: 'nodejs22.x', nodejs: { format: 'esm', minify: true, esbuild: { conditions: ['@panto/source'] } } });
      const handler = String(fn.args.handler);
      expect(existsSync(join(root, `${handler.slice(0, handler.lastIndexOf('.'))}.ts`)), handler).toBe(true);
    }
  });

  it('links each function to what its handler reads: it loads with only those links, and fails without one', { timeout: 60_000 }, async () => {
    for (const fn of byKind('sst.aws.Function')) {
      const links = linksOf(fn);
      const loaded = await importHandler(String(fn.args.handler), links);
      expect(loaded, `${fn.name}: ${loaded.output}`).toMatchObject({ ok: true });
      const withoutTable = await importHandler(String(fn.args.handler), links.filter((link) => link.name !== 'PantoTable'));
      expect(withoutTable.ok).toBe(false);
      expect(withoutTable.output).toContain('"PantoTable" is not linked');
    }
  });

  it("purges TTL-expired sessions from the table's stream: only TTL's META deletions, failures reported per record", () => {
    const [table] = byKind('sst.aws.Dynamo');
    expect(table?.args.stream).toBe('keys-only');
    expect(subscriptions).toHaveLength(1);
    const [subscription] = subscriptions;
    expect(subscription?.table).toBe(table?.name);
    expect(subscription?.fn.args.handler).toBe('functions/src/handlers/ttl-cleanup.handler');
    expect(linksOf(subscription!.fn).map((link) => link.name).sort()).toEqual(['PantoBucket', 'PantoTable']);
    expect(subscription?.args.filters).toEqual([
      {
        eventName: ['REMOVE'],
        userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
        dynamodb: { Keys: { sk: { S: ['META'] } } },
      },
    ]);
    const mappingArgs: Args = {};
    (subscription?.args.transform as { eventSourceMapping: (args: Args) => void }).eventSourceMapping(mappingArgs);
    expect(mappingArgs.functionResponseTypes).toEqual(['ReportBatchItemFailures']);

    // What a keys-only stream carries when TTL removes a tombstone a crashed delete left: the
    // filter lets it through and the handler finds the session in it. A finished delete's own
    // removal of its tombstone (no userIdentity) and entry items never reach the handler.
    const keys = (sk: string) => ({ pk: { S: 'SESSION#0190a1b2-0000-7000-8000-000000000001' }, sk: { S: sk } });
    const ttlRemoval: DynamoDBStreamRecord = {
      eventName: 'REMOVE',
      userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
      dynamodb: { Keys: keys('META'), SequenceNumber: '1' },
    };
    const [filter] = subscription?.args.filters as unknown[];
    expect(passes(filter, ttlRemoval)).toBe(true);
    expect(ttlExpiredSessionId(ttlRemoval)).toBe('0190a1b2-0000-7000-8000-000000000001');
    expect(passes(filter, { eventName: 'REMOVE', dynamodb: { Keys: keys('META') } })).toBe(false);
    expect(passes(filter, { ...ttlRemoval, dynamodb: { Keys: keys('E#000000000000') } })).toBe(false);
  });

  it('keys the table as @panto/aws expects, with its GSI, TTL and point-in-time recovery', () => {
    const [table] = byKind('sst.aws.Dynamo');
    expect(table?.args).toMatchObject({
      fields: { pk: 'string', sk: 'string', gsi1pk: 'string', gsi1sk: 'string' },
      primaryIndex: { hashKey: 'pk', rangeKey: 'sk' },
      globalIndexes: { byOwner: { hashKey: 'gsi1pk', rangeKey: 'gsi1sk' } },
      ttl: 'expires_at',
    });
    const tableArgs: Args = {};
    (table?.args.transform as { table: (args: Args) => void }).table(tableArgs);
    expect(tableArgs.pointInTimeRecovery).toEqual({ enabled: true });
  });

  it('encrypts the bucket, expires exports, and never expires offloaded messages by age', () => {
    const [bucket] = byKind('sst.aws.Bucket');
    const lifecycle = bucket?.args.lifecycle as Args[];
    expect(lifecycle).toContainEqual(expect.objectContaining({ prefix: 'exports/', expiresIn: '7 days' }));
    const offloads = lifecycle.find((rule) => rule.prefix === 'offload/');
    expect(offloads).toEqual({ id: 'tier-offloads', prefix: 'offload/' });
    const lifecycleArgs: Args = {
      rules: [
        { id: 'expire-exports', filter: { prefix: 'exports/' }, expiration: { days: 7 } },
        { id: 'tier-offloads', filter: { prefix: 'offload/' } },
      ],
    };
    (bucket?.args.transform as { lifecycle: (args: Args) => void }).lifecycle(lifecycleArgs);
    expect(lifecycleArgs.rules).toEqual([
      { id: 'expire-exports', filter: { prefix: 'exports/' }, expiration: { days: 7 }, abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } },
      { id: 'tier-offloads', filter: { prefix: 'offload/' }, transitions: [{ days: 30, storageClass: 'INTELLIGENT_TIERING' }] },
    ]);
    const [encryption] = byKind('aws.s3.BucketServerSideEncryptionConfiguration');
    expect(encryption?.args).toMatchObject({
      bucket: output(`${bucket?.name}.name`),
      rules: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: 'AES256' } }],
    });
  });

  it('keeps the provider keys and the MCP servers (whose headers may hold tokens) in secrets', () => {
    expect(byKind('sst.Secret').map((secret) => secret.name).sort()).toEqual(['AnthropicApiKey', 'MCPServers', 'OpenAIApiKey']);
    for (const handler of ['functions/src/handlers/api.handler', 'functions/src/handlers/stream.handler']) {
      const fn = byKind('sst.aws.Function').find((candidate) => candidate.args.handler === handler)!;
      expect(linksOf(fn).map((link) => link.name)).toContain('MCPServers');
    }
  });

  it('refuses to deploy without an issuer and audience', async () => {
    delete process.env.PANTO_JWT_ISSUER;
    try {
      await expect(config.run()).rejects.toThrow(/PANTO_JWT_ISSUER/);
    } finally {
      process.env.PANTO_JWT_ISSUER = 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_TEST';
    }
  });
});
