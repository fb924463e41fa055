/**
 * Tracing with the OpenTelemetry SDK: a tracer provider of panto's own (not registered
 * globally), a batch span processor, and the OTLP/HTTP exporter the protocol names —
 * `@opentelemetry/exporter-trace-otlp-proto` for `http/protobuf`, `…-otlp-http` for
 * `http/json`. Both read the standard variables themselves (endpoint, headers, timeout,
 * compression), the provider its sampler and limits, the processor its batch settings, and the
 * resource `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. Only tracing.ts imports this
 * module, and only when tracing is on.
 */
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { propagation } from '@opentelemetry/api';
import { OTLPTraceExporter as JSONTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Env } from '../../config.js';
import { SERVICE_VERSION } from '../../version.js';
import type { TraceSettings } from '../trace-settings.js';
import type { Tracing, TracingOptions } from '../tracer.js';
import { requestSpans } from './request-spans.js';
import { instrumentClient, type TracedClient } from './store-spans.js';
import { observeAgent } from './turn-spans.js';

/** The tracer's instrumentation scope. */
export const TRACER_NAME = '@panto/functions';
/** The longest a request waits for its spans' export: a collector that is down must not hold answers for long. */
export const FLUSH_TIMEOUT_MS = 3_000;

export function otelTracing(settings: TraceSettings, options: TracingOptions): Tracing {
  // Reading a caller's `traceparent` needs a propagator; one registered already (another SDK's) stays.
  if (propagation.fields().length === 0) propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const exporter = settings.protocol === 'http/json' ? new JSONTraceExporter() : new ProtobufTraceExporter();
  const provider = new BasicTracerProvider({ resource: serviceResource(options.env ?? process.env), spanProcessors: [new BatchSpanProcessor(exporter)] });
  const tracer = provider.getTracer(TRACER_NAME, SERVICE_VERSION);
  const flush = (): Promise<void> => bounded(provider.forceFlush());
  return {
    middleware: requestSpans(tracer, options.flushEachRequest ? flush : undefined),
    observeAgent: (agent) => {
      try {
        observeAgent(tracer, agent, settings.content);
      } catch (error) {
        console.error('panto: tracing a turn failed', error);
      }
    },
    instrument: (client) => instrumentClient(tracer, client as TracedClient),
    flush,
    shutdown: () => bounded(provider.shutdown()),
  };
}

/** panto's service name and version, what Lambda says of the function, and the environment's own resource attributes over them. */
function serviceResource(env: Env): Resource {
  const lambda = env.AWS_LAMBDA_FUNCTION_NAME;
  return resourceFromAttributes({
    [ATTR_SERVICE_NAME]: 'panto',
    [ATTR_SERVICE_VERSION]: SERVICE_VERSION,
    ...(lambda === undefined
      ? {}
      : {
          'cloud.provider': 'aws',
          'cloud.platform': 'aws_lambda',
          'faas.name': lambda,
          ...(env.AWS_REGION ? { 'cloud.region': env.AWS_REGION } : {}),
          ...(env.AWS_LAMBDA_FUNCTION_VERSION ? { 'faas.version': env.AWS_LAMBDA_FUNCTION_VERSION } : {}),
          ...(env.AWS_LAMBDA_LOG_STREAM_NAME ? { 'faas.instance': env.AWS_LAMBDA_LOG_STREAM_NAME } : {}),
        }),
  }).merge(detectResources({ detectors: [envDetector] }));
}

/** Settles when `work` does or after {@link FLUSH_TIMEOUT_MS}, whichever is first; never rejects. */
async function bounded(work: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, FLUSH_TIMEOUT_MS);
    timer.unref();
  });
  try {
    await Promise.race([work.catch((error: unknown) => console.warn('panto: exporting spans failed', error)), late]);
  } finally {
    clearTimeout(timer);
  }
}
