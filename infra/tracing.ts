/**
 * Traces from the HTTP functions (see docs/deploy.md#traces): OpenTelemetry's standard
 * variables, passed to them as set for `sst deploy`, and — with PANTO_OTEL_COLLECTOR_LAYER —
 * an OpenTelemetry Collector Lambda layer (ADOT's `aws-otel-collector-arm64-…`, or the
 * community's `opentelemetry-collector-arm64-…`) that the functions export to on
 * localhost:4318 and that forwards where its configuration says (ADOT's default: X-Ray).
 */

/** The variables the functions' tracing reads (functions/src/telemetry/trace-settings.ts and the OTLP exporter). */
const TRACE_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_EXPORTER_OTLP_COMPRESSION',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_SDK_DISABLED',
  'PANTO_TRACE_CONTENT',
  // The collector layer's own configuration (a file in the bundle, s3://…, https://…).
  'OPENTELEMETRY_COLLECTOR_CONFIG_URI',
] as const;

/** Where a collector layer listens: what the functions export to when it is there and no endpoint is given. */
export const COLLECTOR_ENDPOINT = 'http://localhost:4318';

const collectorLayer = process.env.PANTO_OTEL_COLLECTOR_LAYER?.trim() || undefined;
const given = Object.fromEntries(TRACE_VARIABLES.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])));
const endpointGiven = given.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || given.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined;

/** The tracing part of the HTTP functions' environment. */
export const tracingEnvironment: Record<string, string> = {
  ...given,
  ...(collectorLayer && !endpointGiven ? { OTEL_EXPORTER_OTLP_ENDPOINT: COLLECTOR_ENDPOINT } : {}),
};

/** What the HTTP functions get for the collector: the layer — nothing without PANTO_OTEL_COLLECTOR_LAYER. */
export const tracingFunction = collectorLayer ? { layers: [collectorLayer] } : {};

/** What the collector layer needs to send to X-Ray (ADOT's default exporter); nothing without one. (Functions list it with their other permissions.) */
export const tracingPermissions = collectorLayer ? [{ actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], resources: ['*'] }] : [];
