/**
 * Traces, over OTLP, when the standard OpenTelemetry variables ask for them
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`; see trace-settings.ts): a span per request, per turn
 * (`invoke_agent panto`), per provider call (`chat <model>`), per tool call
 * (`execute_tool <name>`) and per DynamoDB or S3 call, named and attributed as the GenAI
 * semantic conventions say. Off, it costs nothing: this module imports no OpenTelemetry code,
 * and the SDK (otel/, a chunk of its own in a Lambda bundle) is loaded only when tracing is on.
 */
import type { Env } from '../config.js';
import { type TraceSettings, traceSettings } from './trace-settings.js';
import type { Tracing, TracingOptions } from './tracer.js';

/**
 * Loads the OpenTelemetry SDK and starts tracing.
 *
 * @example
 * const tracing = await startTracing({ protocol: 'http/protobuf', content: false }, { flushEachRequest: false });
 */
export async function startTracing(settings: TraceSettings, options: TracingOptions): Promise<Tracing> {
  const { otelTracing } = await import('./otel/otel-tracing.js');
  return otelTracing(settings, options);
}

/**
 * Tracing from the environment (see `traceSettings`): undefined — and nothing of
 * OpenTelemetry loaded — when it is off. `warn` hears what is wrong with the settings.
 *
 * @example
 * const tracing = await tracingFromEnv(process.env, { flushEachRequest: false, warn: console.warn });
 */
export async function tracingFromEnv(env: Env, options: { flushEachRequest: boolean; warn: (line: string) => void }): Promise<Tracing | undefined> {
  const { settings, problems } = traceSettings(env);
  for (const problem of problems) options.warn(problem);
  return settings === null ? undefined : startTracing(settings, { flushEachRequest: options.flushEachRequest, env });
}

/**
 * A Lambda function's tracing: {@link tracingFromEnv}, exporting each request's spans before
 * its answer ends.
 *
 * @example
 * const tracing = await lambdaTracing(process.env, logOutage);
 */
export async function lambdaTracing(
  env: Env = process.env,
  warn: (line: string) => void = (line) => console.warn(`panto: ${line}`),
): Promise<Tracing | undefined> {
  return tracingFromEnv(env, { flushEachRequest: true, warn });
}
