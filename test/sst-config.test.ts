/**
 * sst.config.ts, run against recording stand-ins for SST's globals ($config, $app, $dev,
 * $interpolate, sst.*, aws.*), in each identity case (an issuer of your own; a Cognito user
 * pool the stack creates) and under `sst dev`: every route reaches an exported handler behind
 * the JWT authorizer but the public ones, the authorizer and the streaming function trust the
 * same issuer, CORS is the app's, every function (the table's stream subscriber too) links
 * what its code reads, the table and bucket are configured as the service needs, and the
 * outputs carry what docs/deploy.md and `npm run user` read.
 * (`npm run check:sst` type-checks the same file against SST's real types.)
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  API_ROUTES as APP_ROUTES,
  CORS_ALLOW_HEADERS,
  CORS_ALLOW_METHODS,
  CORS_EXPOSE_HEADERS,
  CORS_MAX_AGE_SECONDS,
  createApp,
  DEFAULT_SERVICE_LIMITS,
  ROUTE_LIST,
  routeKey,
  ttlExpiredSessionId,
  type DynamoDBStreamRecord,
} from '@panto/functions';
import { BY_OWNER_PROJECTION } from '@panto/aws';
import { hs256Verifier } from '@panto/functions/local';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { API_MEMORY_MB } from '../infra/lambda.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The routes the manifest serves from the streaming function's URL: every other route is API Gateway's. */
const STREAMED_ROUTES = new Set(ROUTE_LIST.filter((route) => route.streamed).map(routeKey));
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
/** What `router.route()` was given. */
interface RouterRoute {
  pattern: string;
  url: unknown;
  args: Args;
}
const routerRoutes: RouterRoute[] = [];

/** A stand-in for a Pulumi output: a string that names what it stands for. */
const output = (what: string): string => `\${${what}}`;

/** A stand-in for the Output `$resolve` gives: its value at hand, `apply` run at once. */
class Resolved<T> {
  constructor(readonly value: T) {}
  apply<U>(fn: (value: T) => U): Resolved<U> {
    return new Resolved(fn(this.value));
  }
}

/**
 * What Bedrock's GetInferenceProfile answers for the profiles the cases configure: the
 * foundation models each routes to (at deploy time the stack asks AWS; these are its answers).
 */
const INFERENCE_PROFILES: Record<string, string[]> = {
  'global.anthropic.claude-sonnet-4-6': ['us-east-1', 'eu-west-1', 'ap-northeast-1'].map(
    (region) => `arn:aws:bedrock:${region}::foundation-model/anthropic.claude-sonnet-4-6`,
  ),
  'eu.anthropic.claude-sonnet-4-6': ['eu-central-1', 'eu-north-1', 'eu-west-1', 'eu-west-3'].map(
    (region) => `arn:aws:bedrock:${region}::foundation-model/anthropic.claude-sonnet-4-6`,
  ),
};
/** The inference profiles the config looked up. */
const profileLookups: string[] = [];
/** The ARN prefix of Bedrock resources in the stage's region and account, as the config writes it. */
const here = (account: 'account' | 'none'): string =>
  `arn:${output('partition')}:bedrock:${output('region')}:${account === 'account' ? output('accountId') : ''}`;

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
  const Fn = standIn(
    'sst.aws.Function',
    () => ({}),
    (name) => ({ arn: output(`${name}.arn`), url: output(`${name}.url`) }),
  );
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
  const UserPool = class extends standIn(
    'sst.aws.CognitoUserPool',
    (name) => ({ id: output(`${name}.id`) }),
    (name) => ({
      id: output(`${name}.id`),
      domainUrl: output(`${name}.domainUrl`),
    }),
  ) {
    constructor(name: string, args: Args = {}) {
      super(name, args);
      // As SST's: the hosted UI's URL exists only when the pool has a domain.
      if (args.domain === undefined) Object.assign(this, { domainUrl: undefined });
    }
    addClient(name: string, args: Args = {}): { id: string } {
      const client = { id: output(`${name}.id`) };
      record(client, { kind: 'sst.aws.CognitoUserPoolClient', name, args, link: { id: client.id } });
      return client;
    }
  };
  const CronV2 = class {
    constructor(name: string, args: Args) {
      record(this, { kind: 'sst.aws.CronV2', name, args, link: {} });
      // SST builds a function from function args.
      if (typeof args.function !== 'object') throw new Error('expected function args, not an ARN or a bare handler');
      resources.push({ kind: 'sst.aws.Function', name: `${name}Handler`, args: args.function as Args, link: {} });
    }
  };
  const Router = class {
    readonly url = output('PantoRouter.url');
    constructor(name: string, args: Args = {}) {
      record(this, { kind: 'sst.aws.Router', name, args, link: { url: this.url } });
    }
    route(pattern: string, url: unknown, args: Args = {}): void {
      routerRoutes.push({ pattern, url, args });
    }
    routeSite(): never {
      // As SST 4.17: deprecated, throws; a site attaches with its `router` prop.
      throw new Error('The "routeSite" function has been deprecated.');
    }
  };
  const StaticSite = class {
    readonly url: unknown;
    constructor(name: string, args: Args = {}) {
      record(this, { kind: 'sst.aws.StaticSite', name, args, link: {} });
      // As SST's: a site served through a Router is at the Router's URL.
      const router = (args.router as { instance?: { url?: unknown } } | undefined)?.instance;
      this.url = router?.url ?? output(`${name}.url`);
    }
  };
  Object.assign(globalThis, {
    $config: (config: unknown) => config,
    $app: { name: 'panto', stage: 'test' },
    $dev: false,
    $interpolate: (strings: TemplateStringsArray, ...values: unknown[]) =>
      strings.reduce((text, part, i) => `${text}${part}${i < values.length ? String(values[i]) : ''}`, ''),
    $resolve: (values: unknown[] | Record<string, unknown>) => {
      const settle = (value: unknown): unknown => (value instanceof Resolved ? value.value : value);
      return new Resolved(Array.isArray(values) ? values.map(settle) : Object.fromEntries(Object.entries(values).map(([key, value]) => [key, settle(value)])));
    },
    sst: { Secret, Linkable, aws: { Dynamo, Bucket, Function: Fn, ApiGatewayV2: Api, CognitoUserPool: UserPool, CronV2, StaticSite, Router } },
    aws: {
      s3: { BucketServerSideEncryptionConfiguration: Encryption },
      getRegionOutput: () => ({ region: output('region') }),
      getPartitionOutput: () => ({ partition: output('partition') }),
      getCallerIdentityOutput: () => ({ accountId: output('accountId') }),
      bedrock: {
        getInferenceProfileOutput: ({ inferenceProfileId }: { inferenceProfileId: string }) => {
          profileLookups.push(inferenceProfileId);
          const models = INFERENCE_PROFILES[inferenceProfileId];
          if (!models) throw new Error(`no inference profile ${inferenceProfileId}`);
          return { models: new Resolved(models.map((modelArn) => ({ modelArn }))) };
        },
      },
    },
  });
}

/** Forgets what the last run recorded. */
function resetRecording(): void {
  resources.length = 0;
  instances.clear();
  routes.length = 0;
  authorizers.length = 0;
  subscriptions.length = 0;
  routerRoutes.length = 0;
  profileLookups.length = 0;
}

const SETTINGS = [
  'PANTO_JWT_ISSUER',
  'PANTO_JWT_AUDIENCE',
  'PANTO_JWT_JWKS_URL',
  'PANTO_CORS_ORIGINS',
  'PANTO_AUTH_CALLBACK_URLS',
  'PANTO_AUTH_LOGOUT_URLS',
  'PANTO_AUTH_DOMAIN_PREFIX',
  'PANTO_ARCHIVE_AFTER_DAYS',
  'PANTO_ARCHIVE_SWEEP_SECONDS',
  'PANTO_ARCHIVE_TIER_DAYS',
  'PANTO_TRACE_CONTENT',
  'PANTO_OTEL_COLLECTOR_LAYER',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_SERVICE_NAME',
  'OPENTELEMETRY_COLLECTOR_CONFIG_URI',
  'PANTO_PROVIDER',
  'PANTO_MODEL',
  'PANTO_EXTRA_MODELS',
  'PANTO_BUDGET_DAILY_USD',
  'PANTO_BUDGET_MONTHLY_USD',
  'PANTO_TURNS_PER_MINUTE',
  'PANTO_CONCURRENT_TURNS',
  'PANTO_MODEL_PRICES',
];

/** Runs the config with exactly `env` among its settings, on `stage`, under `sst dev` or not; returns its outputs. */
async function evaluate(env: Record<string, string>, options: { stage?: string; dev?: boolean } = {}): Promise<Args> {
  resetRecording();
  for (const name of SETTINGS) delete process.env[name];
  Object.assign(process.env, env);
  config = await loadConfig();
  // As SST: the stage's `$app` carries what the config's app() says of it (its removal and protection).
  const stage = options.stage ?? 'test';
  Object.assign(globalThis, { $dev: options.dev ?? false, $app: { ...config.app({ stage }), stage } });
  return config.run();
}

/**
 * sst.config.ts, freshly imported: its run() imports infra/*, whose modules create their
 * resources when they are first imported — as SST evaluates the config once per process.
 */
async function loadConfig(): Promise<SstConfig> {
  vi.resetModules();
  // A path, not a literal specifier: the config is type-checked by `npm run check:sst`, against SST's types.
  return ((await import(pathToFileURL(join(root, 'sst.config.ts')).href)) as { default: SstConfig }).default;
}

interface SstConfig {
  app(input: { stage: string }): Args;
  run(): Promise<Args>;
}

let config: SstConfig;
let outputs: Args;

const OWN_ISSUER = { PANTO_JWT_ISSUER: 'https://login.example.com/', PANTO_JWT_AUDIENCE: 'panto-client', PANTO_CORS_ORIGINS: 'https://app.example.com' };
// biome-ignore lint/suspicious/noTemplateCurlyInString: the interpolation sst.config.ts writes, as text
const COGNITO_ISSUER = 'https://cognito-idp.${region}.amazonaws.com/${PantoUserPool.id}';

beforeAll(async () => {
  installStandIns();
  config = await loadConfig();
});

const byKind = (kind: string): Resource[] => resources.filter((resource) => resource.kind === kind);
const functionByArn = (arn: unknown): Resource | undefined => byKind('sst.aws.Function').find((fn) => output(`${fn.name}.arn`) === arn);
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

describe('sst.config.ts, with an issuer of your own', () => {
  beforeEach(async () => {
    outputs = await evaluate({ ...OWN_ISSUER, PANTO_ARCHIVE_AFTER_DAYS: '30' });
  });

  it('retains everything in production (prod or production) and removes other stages', () => {
    expect(config.app({ stage: 'production' })).toMatchObject({ name: 'panto', home: 'aws', removal: 'retain', protect: true });
    expect(config.app({ stage: 'prod' })).toMatchObject({ removal: 'retain', protect: true });
    expect(config.app({ stage: 'dev' })).toMatchObject({ removal: 'remove', protect: false });
  });

  it("routes every one of the app's routes but the streaming ones through API Gateway, behind the JWT authorizer but the public ones", () => {
    const app = createApp({
      dynamo: {} as never,
      tableName: 't',
      s3: {} as never,
      bucket: 'b',
      providers: () => {
        throw new Error('not called');
      },
      verifier: hs256Verifier(new Uint8Array(32)),
      limits: DEFAULT_SERVICE_LIMITS,
    });
    const appRoutes = app.routes
      .filter((route) => route.method !== 'ALL')
      .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`)
      .filter((route) => !STREAMED_ROUTES.has(route));
    expect(routes.map((route) => route.route).sort((a, b) => a.localeCompare(b))).toEqual([...new Set(appRoutes)].sort((a, b) => a.localeCompare(b)));

    expect(authorizers).toHaveLength(1);
    const [authorizer] = authorizers;
    expect(authorizer?.args).toEqual({ name: expect.any(String), jwt: { issuer: 'https://login.example.com', audiences: ['panto-client'] } });
    const publicRoutes = APP_ROUTES.filter((route) => route.public).map((route) => `${route.method.toUpperCase()} ${route.path}`);
    expect(publicRoutes.sort((a, b) => a.localeCompare(b))).toEqual(['GET /.well-known/agent-card.json', 'GET /health', 'GET /openapi.json']);
    for (const route of routes) {
      expect(route.args.auth, route.route).toEqual(publicRoutes.includes(route.route) ? undefined : { jwt: { authorizer: authorizer?.id } });
      const fn = functionByArn(route.handler);
      expect(fn?.args.handler, route.route).toBe('functions/src/handlers/api.handler');
    }
  });

  it('has the streaming function verify the same issuer and audience as the authorizer, and creates no user pool', () => {
    const [auth] = byKind('sst.Linkable').filter((linkable) => linkable.name === 'PantoAuth');
    expect(auth?.link).toEqual({ issuer: 'https://login.example.com', audience: 'panto-client', jwksUrl: 'https://login.example.com/.well-known/jwks.json' });
    expect(byKind('sst.aws.CognitoUserPool')).toEqual([]);
    expect(outputs).not.toHaveProperty('userPool');
  });

  it('answers browsers with the same CORS rules on API Gateway, on the function URL and in the app', () => {
    const cors = {
      allowOrigins: ['https://app.example.com'],
      allowHeaders: [...CORS_ALLOW_HEADERS],
      allowMethods: [...CORS_ALLOW_METHODS],
      exposeHeaders: [...CORS_EXPOSE_HEADERS],
      maxAge: `${CORS_MAX_AGE_SECONDS} seconds`,
    };
    const [api] = byKind('sst.aws.ApiGatewayV2');
    expect(api?.args.cors).toEqual(cors);
    const stream = byKind('sst.aws.Function').find((fn) => fn.args.handler === 'functions/src/handlers/stream.handler');
    expect((stream!.args.url as Args).cors).toEqual(cors);
    // A function URL takes at most 6 methods of at most 6 characters each.
    expect(cors.allowMethods.length).toBeLessThanOrEqual(6);
    for (const method of cors.allowMethods) expect(method.length).toBeLessThanOrEqual(6);
    // The functions that answer HTTP (not the stream consumer, not the sweeper).
    const http = ['functions/src/handlers/api.handler', 'functions/src/handlers/stream.handler'];
    for (const fn of byKind('sst.aws.Function').filter((each) => http.includes(String(each.args.handler)))) {
      expect((fn.args.environment as Args).PANTO_CORS_ORIGINS, fn.name).toBe('https://app.example.com');
      // They export sessions: a full GC after each part keeps an export's peak memory down.
      expect((fn.args.environment as Args).NODE_OPTIONS, fn.name).toBe('--expose-gc');
      // The size `npm run bench -- lambda-memory` checks against the measured peak RSS.
      expect(fn.args.memory, fn.name).toBe(`${API_MEMORY_MB} MB`);
    }
  });

  it('outputs the URLs, the stage and the region', () => {
    expect(outputs).toMatchObject({
      stage: 'test',
      region: output('region'),
      api: output('PantoApi.url'),
      // The site is served through the Router: its URL is the Router's.
      web: output('PantoRouter.url'),
      table: output('PantoTable.name'),
      bucket: output('PantoBucket.name'),
      issuer: 'https://login.example.com',
    });
  });

  it('serves the web client through the Router, built to call the API and the stream on its own origin', () => {
    const sites = byKind('sst.aws.StaticSite');
    expect(sites).toHaveLength(1);
    expect(sites[0]?.args).toMatchObject({ path: 'web', build: { command: 'npm run build', output: 'dist' } });
    const [router] = byKind('sst.aws.Router');
    expect(instances.get((sites[0]!.args.router as { instance: object }).instance)).toBe(router);
    // The names web/src/config.ts reads — paths on the page's origin — and no hosted UI: an issuer of your own has none the stack knows.
    expect(sites[0]?.args.environment).toEqual({ VITE_PANTO_API_URL: '/api', VITE_PANTO_STREAM_URL: '/stream' });
    expect(existsSync(join(root, 'web', 'package.json'))).toBe(true);
  });

  it('puts the API at /api and the stream at /stream of one Router, each path rewritten to the route the function serves', () => {
    expect(byKind('sst.aws.Router').map((router) => router.name)).toEqual(['PantoRouter']);
    expect(routerRoutes).toEqual([
      { pattern: '/api', url: output('PantoApi.url'), args: { rewrite: { regex: '^/api/(.*)$', to: '/$1' }, readTimeout: '60 seconds' } },
      { pattern: '/stream', url: output('PantoStreamFunction.url'), args: { rewrite: { regex: '^/stream/(.*)$', to: '/$1' }, readTimeout: '60 seconds' } },
      // The A2A Agent Card on the origin's well-known path, where A2A clients look: the API's route of the same path.
      { pattern: '/.well-known/agent-card.json', url: output('PantoApi.url'), args: { readTimeout: '60 seconds' } },
    ]);
    // What the Router's CloudFront function does with a path (uri.replace(new RegExp(regex), to)):
    // every route API Gateway has, under /api, reaches it as itself; the streaming routes under /stream.
    const rewrite = (pattern: string, uri: string): string => {
      const { regex, to } = routerRoutes.find((route) => route.pattern === pattern)!.args.rewrite as { regex: string; to: string };
      return uri.replace(new RegExp(regex), to);
    };
    for (const route of routes) {
      const path = route.route.split(' ')[1]!.replace(/\{id\}/g, '0190a1b2-0000-7000-8000-000000000001');
      expect(rewrite('/api', `/api${path}`)).toBe(path);
    }
    for (const route of APP_ROUTES.filter((each) => STREAMED_ROUTES.has(`${each.method.toUpperCase()} ${each.path}`))) {
      expect(rewrite('/stream', `/stream${route.path}`)).toBe(route.path);
    }
    // No larger than its wait for API Gateway (30 s), which cuts a synchronous turn first.
    expect(Number.parseInt(String(routerRoutes[0]?.args.readTimeout), 10)).toBeGreaterThan(30);
  });

  it("forwards the bearer token through the Router's cache policy, keyed on it, keeping SST's own headers", () => {
    const [router] = byKind('sst.aws.Router');
    // SST's policy for routes added with route(), as 4.17.1 builds it.
    const policy: Args = {
      defaultTtl: 0,
      parametersInCacheKeyAndForwardedToOrigin: {
        cookiesConfig: { cookieBehavior: 'none' },
        headersConfig: { headerBehavior: 'whitelist', headers: { items: ['x-open-next-cache-key', 'x-forwarded-host'] } },
        queryStringsConfig: { queryStringBehavior: 'all' },
      },
    };
    ((router!.args.transform as Args).cachePolicy as (args: Args) => void)(policy);
    expect((policy.parametersInCacheKeyAndForwardedToOrigin as Args).headersConfig).toEqual({
      headerBehavior: 'whitelist',
      headers: { items: ['x-open-next-cache-key', 'x-forwarded-host', 'Authorization'] },
    });
  });

  it('serves the streaming route from a function with response streaming behind its own URL', () => {
    const stream = byKind('sst.aws.Function').find((fn) => fn.args.handler === 'functions/src/handlers/stream.handler');
    expect(stream?.args).toMatchObject({ streaming: true, url: { authorization: 'none' }, timeout: '15 minutes' });
    expect(outputs.stream).toBe(output(`${stream?.name}.url`));
  });

  it('runs every function on nodejs22.x, bundled from the workspace sources', () => {
    const functions = byKind('sst.aws.Function');
    expect(functions.map((fn) => String(fn.args.handler)).sort((a, b) => a.localeCompare(b))).toEqual([
      'functions/src/handlers/api.handler',
      'functions/src/handlers/archive-sweep.handler',
      'functions/src/handlers/stream.handler',
      'functions/src/handlers/ttl-cleanup.handler',
    ]);
    for (const fn of functions) {
      // Split at dynamic imports: a cold start loads neither the provider SDKs nor OpenTelemetry (scripts/bundle.ts).
      expect(fn.args).toMatchObject({
        runtime: 'nodejs22.x',
        nodejs: { format: 'esm', minify: true, splitting: true, esbuild: { conditions: ['@panto/source'], mainFields: ['module', 'main'] } },
      });
      const handler = String(fn.args.handler);
      expect(existsSync(join(root, `${handler.slice(0, handler.lastIndexOf('.'))}.ts`)), handler).toBe(true);
    }
  });

  it('links each function to what its handler reads: it loads with only those links, and fails without one', { timeout: 60_000 }, async () => {
    for (const fn of byKind('sst.aws.Function')) {
      const links = linksOf(fn);
      const loaded = await importHandler(String(fn.args.handler), links);
      expect(loaded, `${fn.name}: ${loaded.output}`).toMatchObject({ ok: true });
      const withoutTable = await importHandler(
        String(fn.args.handler),
        links.filter((link) => link.name !== 'PantoTable'),
      );
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
    expect(
      linksOf(subscription!.fn)
        .map((link) => link.name)
        .sort((a, b) => a.localeCompare(b)),
    ).toEqual(['PantoBucket', 'PantoTable']);
    expect(subscription?.args.filters).toEqual([
      {
        eventName: ['REMOVE'],
        userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
        dynamodb: { Keys: { sk: { S: ['META'] } } },
      },
    ]);
    const mappingArgs: Args = {};
    (subscription!.args.transform as { eventSourceMapping: (args: Args) => void }).eventSourceMapping(mappingArgs);
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
    const [filter] = subscription!.args.filters as unknown[];
    expect(passes(filter, ttlRemoval)).toBe(true);
    expect(ttlExpiredSessionId(ttlRemoval)).toBe('0190a1b2-0000-7000-8000-000000000001');
    expect(passes(filter, { eventName: 'REMOVE', dynamodb: { Keys: keys('META') } })).toBe(false);
    expect(passes(filter, { ...ttlRemoval, dynamodb: { Keys: keys('E#000000000000') } })).toBe(false);
  });

  it('keys the table as @panto/aws expects, with its GSIs, TTL and point-in-time recovery', () => {
    const [table] = byKind('sst.aws.Dynamo');
    expect(table?.args).toMatchObject({
      fields: { pk: 'string', sk: 'string', gsi1pk: 'string', gsi1sk: 'string', gsi2pk: 'string', gsi2sk: 'string' },
      primaryIndex: { hashKey: 'pk', rangeKey: 'sk' },
      globalIndexes: {
        byOwner: { hashKey: 'gsi1pk', rangeKey: 'gsi1sk' },
        byActivity: { hashKey: 'gsi2pk', rangeKey: 'gsi2sk', projection: 'keys-only' },
      },
      ttl: 'expires_at',
    });
    // The list's index projects what @panto/aws reads from it, and only that.
    const { byOwner } = table!.args.globalIndexes as { byOwner: { projection: string[] } };
    expect(new Set(byOwner.projection)).toEqual(new Set(BY_OWNER_PROJECTION));
    expect(byOwner.projection).toHaveLength(BY_OWNER_PROJECTION.length);
    const tableArgs: Args = {};
    (table!.args.transform as { table: (args: Args) => void }).table(tableArgs);
    expect(tableArgs.pointInTimeRecovery).toEqual({ enabled: true });
  });

  it('encrypts the bucket, expires big idempotent answers, never expires exports, archives or offloaded messages, and tiers them by age', () => {
    const [bucket] = byKind('sst.aws.Bucket');
    const lifecycle = bucket?.args.lifecycle as Args[];
    expect(lifecycle).toEqual([
      { id: 'tier-exports', prefix: 'exports/' },
      { id: 'tier-archives', prefix: 'archive/' },
      { id: 'tier-offloads', prefix: 'offload/' },
      // Longer than the longest key (PANTO_IDEMPOTENCY_TTL_HOURS is at most 168).
      { id: 'expire-idempotency', prefix: 'idempotency/', expiresIn: '8 days' },
    ]);
    // What SST makes of those rules (no expiration: none has expiresIn), then our transform.
    const lifecycleArgs: Args = {
      rules: lifecycle.map(({ id, prefix, expiresIn }) => ({ id, filter: { prefix }, status: 'Enabled', ...(expiresIn ? { expiration: { days: 8 } } : {}) })),
    };
    (bucket!.args.transform as { lifecycle: (args: Args) => void }).lifecycle(lifecycleArgs);
    const abort = { abortIncompleteMultipartUpload: { daysAfterInitiation: 1 } };
    expect(lifecycleArgs.rules).toEqual([
      { id: 'tier-exports', filter: { prefix: 'exports/' }, status: 'Enabled', transitions: [{ days: 30, storageClass: 'GLACIER_IR' }], ...abort },
      { id: 'tier-archives', filter: { prefix: 'archive/' }, status: 'Enabled', transitions: [{ days: 30, storageClass: 'GLACIER_IR' }], ...abort },
      { id: 'tier-offloads', filter: { prefix: 'offload/' }, status: 'Enabled', transitions: [{ days: 30, storageClass: 'INTELLIGENT_TIERING' }] },
      { id: 'expire-idempotency', filter: { prefix: 'idempotency/' }, status: 'Enabled', expiration: { days: 8 }, ...abort },
    ]);
    // Only the idempotent answers expire: a session's copies live as long as the session.
    expect((lifecycleArgs.rules as Args[]).filter((rule) => 'expiration' in rule).map((rule) => rule.id)).toEqual(['expire-idempotency']);
    const [encryption] = byKind('aws.s3.BucketServerSideEncryptionConfiguration');
    expect(encryption?.args).toMatchObject({
      bucket: output(`${bucket?.name}.name`),
      rules: [{ applyServerSideEncryptionByDefault: { sseAlgorithm: 'AES256' } }],
    });
  });

  // The sweeper is the activity index's only reader, and its handler backfills the index of an
  // older table at its first run, once (test/aws-activity-backfill.test.ts): nothing to run by
  // hand after a deploy, and nothing to run at all where no sweeper is deployed.
  it('sweeps cold sessions to S3 on a schedule when PANTO_ARCHIVE_AFTER_DAYS is set, and only then', async () => {
    const [cron] = byKind('sst.aws.CronV2');
    expect(cron?.args).toMatchObject({
      schedule: 'rate(60 minutes)',
      function: {
        handler: 'functions/src/handlers/archive-sweep.handler',
        timeout: '15 minutes',
        environment: { PANTO_ARCHIVE_AFTER_DAYS: '30', NODE_OPTIONS: '--expose-gc' },
      },
    });
    expect(
      linksOf({ ...cron!, args: cron!.args.function as Args })
        .map((link) => link.name)
        .sort((a, b) => a.localeCompare(b)),
    ).toEqual(['PantoBucket', 'PantoTable']);
    await evaluate(OWN_ISSUER);
    expect(byKind('sst.aws.CronV2')).toEqual([]);
    await evaluate({ ...OWN_ISSUER, PANTO_ARCHIVE_AFTER_DAYS: '0.5', PANTO_ARCHIVE_SWEEP_SECONDS: '60' });
    expect(byKind('sst.aws.CronV2').map((each) => each.args)).toMatchObject([
      { schedule: 'rate(1 minute)', function: { environment: { PANTO_ARCHIVE_AFTER_DAYS: '0.5' } } },
    ]);
  });

  it('keeps the provider keys and the MCP servers (whose headers may hold tokens) in secrets', () => {
    expect(
      byKind('sst.Secret')
        .map((secret) => secret.name)
        .sort((a, b) => a.localeCompare(b)),
    ).toEqual(['AnthropicApiKey', 'MCPServers', 'OpenAIApiKey']);
    for (const handler of ['functions/src/handlers/api.handler', 'functions/src/handlers/stream.handler']) {
      const fn = byKind('sst.aws.Function').find((candidate) => candidate.args.handler === handler)!;
      expect(linksOf(fn).map((link) => link.name)).toContain('MCPServers');
    }
  });

  it("gives the HTTP functions OpenTelemetry's variables as set for the deploy, and a collector layer they export to on localhost", async () => {
    const http = ['functions/src/handlers/api.handler', 'functions/src/handlers/stream.handler'];
    const httpFunctions = (): Resource[] => byKind('sst.aws.Function').filter((fn) => http.includes(String(fn.args.handler)));
    // Off unless asked: no variable, no layer.
    for (const fn of httpFunctions()) {
      expect(Object.keys(fn.args.environment as Args).filter((name) => name.startsWith('OTEL_'))).toEqual([]);
      expect(fn.args).not.toHaveProperty('layers');
    }
    await evaluate({
      ...OWN_ISSUER,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-key=k',
      OTEL_SERVICE_NAME: 'panto-prod',
      PANTO_TRACE_CONTENT: '1',
    });
    expect(httpFunctions()).toHaveLength(2);
    for (const fn of httpFunctions()) {
      expect(fn.args.environment).toMatchObject({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-key=k',
        OTEL_SERVICE_NAME: 'panto-prod',
        PANTO_TRACE_CONTENT: '1',
      });
    }
    const layer = 'arn:aws:lambda:us-east-1:901920570463:layer:aws-otel-collector-arm64-ver-0-117-0:1';
    await evaluate({ ...OWN_ISSUER, PANTO_OTEL_COLLECTOR_LAYER: layer, OPENTELEMETRY_COLLECTOR_CONFIG_URI: '/var/task/collector.yaml' });
    for (const fn of httpFunctions()) {
      expect(fn.args).toMatchObject({
        layers: [layer],
        environment: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318', OPENTELEMETRY_COLLECTOR_CONFIG_URI: '/var/task/collector.yaml' },
      });
      // Beside the grants the function has anyway (Bedrock's models, on a stage without a key).
      expect(fn.args.permissions).toContainEqual({ actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], resources: ['*'] });
    }
    // The table's stream consumer and the sweeper serve no requests: no traces, no layer.
    expect(byKind('sst.aws.Function').filter((fn) => fn.args.layers !== undefined)).toHaveLength(2);
  });

  /** The Bedrock statements of the function serving `handler`, the resources resolved. */
  const bedrockStatements = (handler: string): { actions: string[]; resources: string[] }[] => {
    const fn = byKind('sst.aws.Function').find((candidate) => candidate.args.handler === handler)!;
    return ((fn.args.permissions ?? []) as { actions: string[]; resources: Resolved<string[]> }[]).map((statement) => ({
      actions: statement.actions,
      resources: statement.resources.value,
    }));
  };
  const TURN_HANDLERS = ['functions/src/handlers/api.handler', 'functions/src/handlers/stream.handler'];

  it("lets the API and stream functions call Bedrock's default model alone when no provider is set: its global profile, the models it routes to, the region-less model", () => {
    for (const handler of TURN_HANDLERS) {
      expect(bedrockStatements(handler), handler).toEqual([
        {
          actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
          resources: [
            `${here('account')}:inference-profile/global.anthropic.claude-sonnet-4-6`,
            ...INFERENCE_PROFILES['global.anthropic.claude-sonnet-4-6']!,
            `arn:${output('partition')}:bedrock:::foundation-model/anthropic.claude-sonnet-4-6`,
          ],
        },
      ]);
      const fn = byKind('sst.aws.Function').find((candidate) => candidate.args.handler === handler)!;
      expect((fn.args.environment as Args).PANTO_BEDROCK_MODELS).toBe('global.anthropic.claude-sonnet-4-6');
    }
    for (const fn of byKind('sst.aws.Function').filter((candidate) => !TURN_HANDLERS.includes(String(candidate.args.handler)))) {
      expect(fn.args.permissions, fn.name).toBeUndefined();
    }
  });

  it('names exactly the configured Bedrock models: the profile and the models it routes to, and a model id in the region', async () => {
    await evaluate({
      ...OWN_ISSUER,
      PANTO_PROVIDER: 'bedrock',
      PANTO_MODEL: 'eu.anthropic.claude-sonnet-4-6',
      PANTO_EXTRA_MODELS: 'bedrock/amazon.nova-pro-v1:0,openai/gpt-x',
    });
    expect(profileLookups).toEqual(['eu.anthropic.claude-sonnet-4-6']);
    for (const handler of TURN_HANDLERS) {
      expect(bedrockStatements(handler)[0]?.resources, handler).toEqual([
        `${here('account')}:inference-profile/eu.anthropic.claude-sonnet-4-6`,
        ...INFERENCE_PROFILES['eu.anthropic.claude-sonnet-4-6']!,
        `${here('none')}:foundation-model/amazon.nova-pro-v1:0`,
      ]);
    }
    const api = byKind('sst.aws.Function').find((candidate) => candidate.args.handler === TURN_HANDLERS[0])!;
    expect((api.args.environment as Args).PANTO_BEDROCK_MODELS).toBe('eu.anthropic.claude-sonnet-4-6,amazon.nova-pro-v1:0');
  });

  it('grants no Bedrock model when another provider is chosen and no Bedrock model is configured', async () => {
    await evaluate({ ...OWN_ISSUER, PANTO_PROVIDER: 'anthropic', PANTO_MODEL: 'claude-sonnet-5-5' });
    for (const handler of TURN_HANDLERS) expect(bedrockStatements(handler), handler).toEqual([]);
    expect(profileLookups).toEqual([]);
    const api = byKind('sst.aws.Function').find((candidate) => candidate.args.handler === TURN_HANDLERS[0])!;
    expect(api.args.environment).not.toHaveProperty('PANTO_BEDROCK_MODELS');
  });

  it('refuses an issuer without its audience', async () => {
    await expect(evaluate({ PANTO_JWT_ISSUER: 'https://login.example.com' })).rejects.toThrow(/PANTO_JWT_AUDIENCE/);
  });
});

describe('sst.config.ts, with no issuer configured: a Cognito user pool', () => {
  beforeEach(async () => {
    outputs = await evaluate({});
  });

  const client = (): Resource => byKind('sst.aws.CognitoUserPoolClient')[0]!;
  /** The user pool client's args after the config's transform. */
  function clientArgs(): Args {
    const args: Args = { allowedOauthFlows: ['implicit', 'code'], allowedOauthFlowsUserPoolClient: true, callbackUrls: ['https://example.com'] };
    ((client().args.transform as Args).client as (args: Args) => void)(args);
    return args;
  }

  it('creates a user pool nobody signs up to by themselves, and one public app client', () => {
    const pools = byKind('sst.aws.CognitoUserPool');
    expect(pools.map((pool) => pool.name)).toEqual(['PantoUserPool']);
    const poolArgs: Args = {};
    ((pools[0]!.args.transform as Args).userPool as (args: Args) => void)(poolArgs);
    expect(poolArgs).toEqual({ adminCreateUserConfig: { allowAdminCreateUserOnly: true }, deletionProtection: 'INACTIVE' });
    expect(byKind('sst.aws.CognitoUserPoolClient').map((each) => each.name)).toEqual(['PantoClient']);
    expect(clientArgs()).toMatchObject({
      explicitAuthFlows: ['ALLOW_ADMIN_USER_PASSWORD_AUTH', 'ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      generateSecret: false,
    });
  });

  it('allows no hosted-UI sign-in until the pool has a hosted-UI domain or callback URLs are set', () => {
    const args = clientArgs();
    expect(args.allowedOauthFlowsUserPoolClient).toBe(false);
    expect(args).not.toHaveProperty('callbackUrls');
    expect(args).not.toHaveProperty('allowedOauthFlows');
  });

  it('has the authorizer and the streaming function trust the pool, with the client as audience', () => {
    expect(authorizers.map((authorizer) => authorizer.args.jwt)).toEqual([{ issuer: COGNITO_ISSUER, audiences: [output('PantoClient.id')] }]);
    const [auth] = byKind('sst.Linkable').filter((linkable) => linkable.name === 'PantoAuth');
    expect(auth?.link).toEqual({ issuer: COGNITO_ISSUER, audience: output('PantoClient.id'), jwksUrl: `${COGNITO_ISSUER}/.well-known/jwks.json` });
    const stream = byKind('sst.aws.Function').find((fn) => fn.args.handler === 'functions/src/handlers/stream.handler');
    expect(linksOf(stream!).map((link) => link.name)).toContain('PantoAuth');
  });

  it('puts every route but the public ones behind the authorizer', () => {
    const [authorizer] = authorizers;
    const guarded = routes.filter((route) => route.args.auth !== undefined);
    expect(guarded.map((route) => route.route).sort((a, b) => a.localeCompare(b))).toEqual(
      APP_ROUTES.filter((route) => !route.public && !STREAMED_ROUTES.has(`${route.method.toUpperCase()} ${route.path}`))
        .map((route) => `${route.method.toUpperCase()} ${route.path}`)
        .sort((a, b) => a.localeCompare(b)),
    );
    for (const route of guarded) expect(route.args.auth).toEqual({ jwt: { authorizer: authorizer?.id } });
  });

  it('outputs the user pool and client that `npm run user` and `npm run token -- --stage` read', () => {
    expect(outputs).toMatchObject({
      stage: 'test',
      region: output('region'),
      issuer: COGNITO_ISSUER,
      userPool: output('PantoUserPool.id'),
      userPoolClient: output('PantoClient.id'),
    });
    expect(outputs).not.toHaveProperty('authDomain');
  });

  it('signs the web client in through the hosted UI after one deploy: the Router’s URL is the callback, with a domain alone', async () => {
    // The only setting: a hosted-UI domain. No second deploy with the site's URL.
    outputs = await evaluate({ PANTO_AUTH_DOMAIN_PREFIX: 'panto-acme' });
    const routerUrl = `${output('PantoRouter.url')}/`;
    expect(client().args.callbackUrls).toEqual([routerUrl]);
    expect(clientArgs()).toMatchObject({ allowedOauthFlowsUserPoolClient: true, allowedOauthFlows: ['code'], logoutUrls: [routerUrl] });
    expect(byKind('sst.aws.StaticSite')[0]?.args.environment).toEqual({
      VITE_PANTO_API_URL: '/api',
      VITE_PANTO_STREAM_URL: '/stream',
      VITE_PANTO_AUTH_DOMAIN: output('PantoUserPool.domainUrl'),
      VITE_PANTO_AUTH_CLIENT_ID: output('PantoClient.id'),
    });
    // The page calls its own origin: no CORS origin needed for it.
    expect((byKind('sst.aws.ApiGatewayV2')[0]!.args.cors as Args).allowOrigins).toEqual([]);
    // Callback URLs without a domain give the page no hosted UI (there is none to send it to).
    await evaluate({ PANTO_AUTH_CALLBACK_URLS: 'https://app.example.com/' });
    expect(byKind('sst.aws.StaticSite')[0]?.args.environment).not.toHaveProperty('VITE_PANTO_AUTH_DOMAIN');
  });

  it('turns on the code flow for a web client at the callback URLs, with a hosted-UI domain', async () => {
    outputs = await evaluate({
      PANTO_AUTH_CALLBACK_URLS: 'https://app.example.com/, https://app.example.com/callback',
      PANTO_AUTH_LOGOUT_URLS: 'https://app.example.com/',
      PANTO_AUTH_DOMAIN_PREFIX: 'panto-acme',
    });
    const routerUrl = `${output('PantoRouter.url')}/`;
    expect(client().args.callbackUrls).toEqual([routerUrl, 'https://app.example.com/', 'https://app.example.com/callback']);
    expect(clientArgs()).toMatchObject({
      allowedOauthFlowsUserPoolClient: true,
      allowedOauthFlows: ['code'],
      allowedOauthScopes: ['openid', 'email', 'profile'],
      logoutUrls: [routerUrl, 'https://app.example.com/'],
    });
    expect(byKind('sst.aws.CognitoUserPool')[0]?.args.domain).toEqual({ prefix: 'panto-acme' });
    expect(outputs.authDomain).toBe(output('PantoUserPool.domainUrl'));
  });

  it('protects the user pool from deletion in production', async () => {
    await evaluate({}, { stage: 'prod' });
    const poolArgs: Args = {};
    ((byKind('sst.aws.CognitoUserPool')[0]!.args.transform as Args).userPool as (args: Args) => void)(poolArgs);
    expect(poolArgs.deletionProtection).toBe('ACTIVE');
  });
});

describe('sst.config.ts with usage limits', () => {
  it("gives the functions that run turns the owners' limits and the operator's model prices, and none when unset", async () => {
    const limits = {
      PANTO_BUDGET_DAILY_USD: '5',
      PANTO_BUDGET_MONTHLY_USD: '100',
      PANTO_TURNS_PER_MINUTE: '10',
      PANTO_CONCURRENT_TURNS: '2',
      PANTO_MODEL_PRICES: '{"openai/gpt-5.4-2026-03-05":{"input":2.5,"output":15}}',
    };
    outputs = await evaluate(limits);
    const http = ['functions/src/handlers/api.handler', 'functions/src/handlers/stream.handler'];
    const functions = byKind('sst.aws.Function').filter((each) => http.includes(String(each.args.handler)));
    expect(functions).toHaveLength(2);
    for (const fn of functions) expect(fn.args.environment, fn.name).toMatchObject(limits);
    outputs = await evaluate({});
    for (const fn of byKind('sst.aws.Function').filter((each) => http.includes(String(each.args.handler)))) {
      expect(
        Object.keys(fn.args.environment as Args).filter(
          (name) => name.startsWith('PANTO_BUDGET') || name.endsWith('_TURNS') || name === 'PANTO_TURNS_PER_MINUTE' || name === 'PANTO_MODEL_PRICES',
        ),
      ).toEqual([]);
    }
  });
});

describe('sst.config.ts under sst dev', () => {
  beforeEach(async () => {
    outputs = await evaluate({ PANTO_CORS_ORIGINS: 'https://app.example.com' }, { dev: true });
  });

  it("adds the local stack's origin to CORS and to the sign-in callbacks", () => {
    const [api] = byKind('sst.aws.ApiGatewayV2');
    expect((api!.args.cors as Args).allowOrigins).toEqual(['https://app.example.com', 'http://127.0.0.1:3000', 'http://localhost:3000']);
    expect(byKind('sst.aws.CognitoUserPoolClient')[0]?.args.callbackUrls).toEqual(['http://127.0.0.1:3000/', 'http://localhost:3000/']);
  });

  it('deploys no Router: the page runs on your machine and calls the stage’s URLs directly', () => {
    expect(byKind('sst.aws.Router')).toEqual([]);
    expect(routerRoutes).toEqual([]);
    expect(byKind('sst.aws.StaticSite')[0]?.args).not.toHaveProperty('router');
    expect(byKind('sst.aws.StaticSite')[0]?.args.environment).toMatchObject({
      VITE_PANTO_API_URL: output('PantoApi.url'),
      VITE_PANTO_STREAM_URL: output('PantoStreamFunction.url'),
    });
  });

  it("runs the web client's dev server on the local stack's origin, which CORS and sign-in allow", () => {
    const [site] = byKind('sst.aws.StaticSite');
    expect(site?.args.dev).toEqual({ command: 'npm run dev -- --port 3000 --strictPort', url: 'http://127.0.0.1:3000' });
    const cors = (byKind('sst.aws.ApiGatewayV2')[0]!.args.cors as Args).allowOrigins as string[];
    expect(cors).toContain((site!.args.dev as Args).url);
  });

  it('deploys the TTL cleanup for real, so it runs while your machine is off', () => {
    expect(subscriptions[0]?.fn.args.dev).toBe(false);
    const live = byKind('sst.aws.Function').filter((fn) => fn.args.dev === undefined);
    expect(live.map((fn) => String(fn.args.handler)).sort((a, b) => a.localeCompare(b))).toEqual([
      'functions/src/handlers/api.handler',
      'functions/src/handlers/stream.handler',
    ]);
  });
});
