/**
 * The store's DynamoDB and S3 calls as client spans, from the AWS SDK v3 middleware stack:
 * one span per call (its retries inside it), named `<service>.<operation>` with the AWS SDK
 * semantic conventions' attributes (`rpc.system` `aws-api`, `rpc.service`, `rpc.method`,
 * `aws.request_id`, the table or bucket). Chosen over `@opentelemetry/instrumentation-aws-sdk`,
 * which patches the SDK as Node loads it: a bundled function has no SDK module to patch, and
 * it would pull in OpenTelemetry's whole instrumentation layer for one middleware.
 */
import { type Attributes, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { redactSecrets } from '@panto/core/agent-kit';
import { requestTraces } from './request-trace.js';

/** What the middleware reads of a call. */
interface CallArgs {
  input: object;
}
interface CallResult {
  output: { $metadata?: { requestId?: string; httpStatusCode?: number; attempts?: number } };
}
interface HandlerContext {
  clientName?: string;
  commandName?: string;
}
type Handler = (args: CallArgs) => Promise<CallResult>;

/** The part of an AWS SDK v3 client this uses. */
export interface TracedClient {
  middlewareStack: {
    add(middleware: never, options: { step: 'initialize'; name: string; override: boolean }): void;
  };
}

export const STORE_SPAN_MIDDLEWARE = 'pantoTraceSpans';

/** Makes every call of `client` made while a request is served a span under the request's current one. */
export function instrumentClient(tracer: Tracer, client: TracedClient): void {
  const middleware =
    (next: Handler, context: HandlerContext): Handler =>
    async (args) => {
      const request = requestTraces.getStore();
      if (request === undefined) return next(args);
      const service = (context.clientName ?? 'AWS').replace(/Client$/, '');
      const method = (context.commandName ?? 'Call').replace(/Command$/, '');
      const span = tracer.startSpan(
        `${service}.${method}`,
        {
          kind: SpanKind.CLIENT,
          attributes: { 'rpc.system': 'aws-api', 'rpc.service': service, 'rpc.method': method, ...resourceAttributes(args.input) },
        },
        request.current,
      );
      try {
        const result = await next(args);
        span.setAttributes(metadataAttributes(result.output.$metadata));
        return result;
      } catch (error) {
        span.setAttributes(metadataAttributes((error as { $metadata?: CallResult['output']['$metadata'] }).$metadata));
        span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
        span.setStatus({ code: SpanStatusCode.ERROR, ...(error instanceof Error ? { message: redactSecrets(error.message) } : {}) });
        throw error;
      } finally {
        span.end();
      }
    };
  client.middlewareStack.add(middleware as never, { step: 'initialize', name: STORE_SPAN_MIDDLEWARE, override: true });
}

function metadataAttributes(metadata: CallResult['output']['$metadata']): Attributes {
  return {
    ...(metadata?.requestId === undefined ? {} : { 'aws.request_id': metadata.requestId }),
    ...(metadata?.httpStatusCode === undefined ? {} : { 'http.response.status_code': metadata.httpStatusCode }),
    ...(metadata?.attempts === undefined || metadata.attempts <= 1 ? {} : { 'http.request.resend_count': metadata.attempts - 1 }),
  };
}

/** The tables a DynamoDB call names, or an S3 call's bucket and object key (session ids, never content). */
function resourceAttributes(input: object): Attributes {
  const fields = input as {
    TableName?: unknown;
    TransactItems?: unknown;
    RequestItems?: unknown;
    Bucket?: unknown;
    Key?: unknown;
  };
  const tables = new Set<string>();
  if (typeof fields.TableName === 'string') tables.add(fields.TableName);
  if (Array.isArray(fields.TransactItems)) {
    for (const item of fields.TransactItems as Record<string, { TableName?: unknown } | undefined>[]) {
      for (const action of Object.values(item)) if (typeof action?.TableName === 'string') tables.add(action.TableName);
    }
  }
  if (typeof fields.RequestItems === 'object' && fields.RequestItems !== null) for (const name of Object.keys(fields.RequestItems)) tables.add(name);
  return {
    ...(tables.size > 0 ? { 'aws.dynamodb.table_names': [...tables] } : {}),
    ...(typeof fields.Bucket === 'string' ? { 'aws.s3.bucket': fields.Bucket } : {}),
    ...(typeof fields.Key === 'string' ? { 'aws.s3.key': fields.Key } : {}),
  };
}
