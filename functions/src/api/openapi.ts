/**
 * The OpenAPI 3.1 document of the API, generated from the route table (`route-table.ts`) with
 * zod's own JSON Schema conversion (`z.toJSONSchema`, draft 2020-12 — the dialect OpenAPI 3.1
 * uses). Why not a library that wraps the routes (`@hono/zod-openapi`): it wants every route
 * rewritten as its `createRoute` and schemas of full `zod`; this keeps the plain Hono routes
 * and the zod/mini schemas that already validate requests, and adds one table entry per route.
 */
import * as z from 'zod/mini';
import type { ApiRoute } from './route-table.js';
import { NAMED_SCHEMAS } from './response-schemas.js';

export type JsonObject = { [key: string]: unknown };

export interface OpenAPIInfo {
  version: string;
  /** Where the API is; the document has no `servers` when absent. */
  serverUrl?: string;
}

const ERROR_DESCRIPTIONS: { [status: number]: string } = {
  400: 'A bad body or query (`invalid_body`, `invalid_query`, `invalid_json`, `invalid_encoding`, `invalid_header`), naming the field.',
  401: 'No valid bearer token (`unauthorized`).',
  404: 'No such session, or not yours (`session_not_found`).',
  409: 'Another turn holds the session (`session_busy`), it changed meanwhile (`session_conflict`), nothing to compact, or a request with the same Idempotency-Key is still running (`idempotency_key_in_progress`).',
  413: 'The body is over the limit (`payload_too_large`).',
  422: "The provider has no key on this server (`provider_not_configured`), the model may not be called by this deployment (`model_access_denied`: enable model access in the Bedrock console, or check the role's policy), the model has no known price while a dollar budget applies to you (`model_price_unknown`, nothing stored), or the Idempotency-Key was used with another request (`idempotency_key_reused`).",
  429: 'Over one of your limits, nothing stored: the spend budget (`budget_exceeded`) or the turns per minute or at once (`rate_limited`); `Retry-After` says when to try again.',
  502: 'The model provider failed (`provider_error`).',
};

const COMPONENT = '#/components/schemas/';

/**
 * Builds the document. Pure: the same table gives the same document.
 *
 * @example
 * const document = openAPIDocument(API_ROUTES, { version: SERVICE_VERSION });
 */
export function openAPIDocument(routes: readonly ApiRoute[], info: OpenAPIInfo): JsonObject {
  const requests = z.registry<{ id: string }>();
  const responses = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(NAMED_SCHEMAS)) responses.add(schema, { id });
  const paths: { [path: string]: { [method: string]: JsonObject } } = {};
  for (const route of routes) {
    const name = route.operationId.charAt(0).toUpperCase() + route.operationId.slice(1);
    const parameters: JsonObject[] = [];
    for (const match of route.path.matchAll(/\{(\w+)\}/g)) {
      parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string', format: 'uuid' } });
    }
    if (route.query) parameters.push(...queryParameters(route.query));
    if (route.idempotent) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'Makes a retry safe: the same key with the same body answers the first response again and writes nothing; with another body, 422; while the first is still running, 409. Keys expire after 24 hours (PANTO_IDEMPOTENCY_TTL_HOURS).',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      });
    }
    const answers = routeResponses(route, name, responses);
    paths[route.path] ??= {};
    paths[route.path]![route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      ...(route.public ? { security: [] } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: false, content: { 'application/json': { schema: named(requests, route.body, `${name}Request`) } } } } : {}),
      ...(route.rawBody
        ? { requestBody: { required: true, description: route.rawBody.description, content: { [route.rawBody.contentType]: { schema: { type: 'string' } } } } }
        : {}),
      responses: answers,
    };
  }

  const schemas = {
    ...components(z.toJSONSchema(requests, { target: 'draft-2020-12', io: 'input', uri: (id) => `${COMPONENT}${id}` })),
    ...components(z.toJSONSchema(responses, { target: 'draft-2020-12', io: 'output', uri: (id) => `${COMPONENT}${id}` })),
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'panto',
      version: info.version,
      description: 'Sessions that persist themselves: create one, run turns on it, export it. See docs/api.md.',
    },
    ...(info.serverUrl ? { servers: [{ url: info.serverUrl }] } : {}),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas,
    },
  };
}

/** Where schemas are named as components: one registry for request bodies (converted as inputs), one for responses (as outputs). */
type Registry = z.core.$ZodRegistry<{ id: string }>;

/** A reference to `schema` as a component: its name in the document, `id` when it has none yet. */
function named(registry: Registry, schema: z.ZodMiniType, id: string): { $ref: string } {
  if (!registry.has(schema)) registry.add(schema, { id });
  return { $ref: `${COMPONENT}${registry.get(schema)!.id}` };
}

/** The route's own answers by status, then its errors (and 401 where it takes a token), then `default` (5xx). */
function routeResponses(route: ApiRoute, name: string, registry: Registry): { [status: string]: JsonObject } {
  const answers: { [status: string]: JsonObject } = {};
  for (const [status, response] of Object.entries(route.responses)) {
    answers[status] = {
      description: response.description,
      ...(route.idempotent && status.startsWith('2')
        ? {
            headers: {
              'Idempotent-Replayed': {
                description: '`true` when this is the stored answer to an earlier request with the same key.',
                schema: { type: 'string', enum: ['true'] },
              },
            },
          }
        : {}),
      ...(response.schema || response.contentType
        ? {
            content: {
              [response.contentType ?? 'application/json']: {
                schema: response.schema ? named(registry, response.schema, `${name}Response${status}`) : { type: 'string' },
              },
            },
          }
        : status === '204'
          ? {}
          : { content: { 'application/json': { schema: { type: 'object' } } } }),
    };
  }
  const errors = [...(route.errors ?? []), ...(route.public ? [] : [401])];
  for (const status of errors) {
    answers[String(status)] ??= {
      description: route.errorDescriptions?.[status] ?? ERROR_DESCRIPTIONS[status] ?? 'An error.',
      content: { 'application/json': { schema: { $ref: `${COMPONENT}Error` } } },
    };
  }
  answers.default = {
    description:
      'A failure of the service (`internal_error`, 500), of its store (`unavailable`, `service_unavailable`: 503 with Retry-After), or a model provider still throttling or down after retries (`provider_unavailable`: 503 with Retry-After).',
    content: { 'application/json': { schema: { $ref: `${COMPONENT}Error` } } },
  };
  return answers;
}

/** A registry's schemas as OpenAPI components: each without the `$schema` and `$id` a standalone schema carries. */
function components(converted: { schemas: { [id: string]: JsonObject } }): { [id: string]: JsonObject } {
  const result: { [id: string]: JsonObject } = {};
  for (const [id, { $schema: _schema, $id: _id, ...schema }] of Object.entries(converted.schemas)) result[id] = schema;
  return result;
}

/** One OpenAPI parameter per property of a query object schema (query values are strings on the wire). */
function queryParameters(query: z.ZodMiniType): JsonObject[] {
  const schema = z.toJSONSchema(query, { target: 'draft-2020-12', io: 'input' }) as {
    properties?: { [name: string]: JsonObject };
    required?: string[];
  };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}
