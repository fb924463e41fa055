/**
 * Logs and metrics on Lambda, with Powertools for AWS Lambda (TypeScript): each request as
 * one structured JSON log line (Logger), and CloudWatch metrics in the embedded metric format
 * (Metrics, namespace `panto`, dimension `service`): `requests`, `errors` (5xx), `turns`,
 * `input_tokens`, `output_tokens`, `cache_read_tokens`, `cache_write_tokens` (Count) and
 * `latency` (Milliseconds). Chosen over a hand-rolled EMF writer: it is what a Lambda
 * operator's dashboards and queries expect, for about 11 KB gzipped in the bundle.
 * The service's defects and outages go through the same Logger.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { SessionServiceDeps } from '../services/session-context.js';
import type { Telemetry } from './request-telemetry.js';

export const SERVICE_NAME = 'panto';
export const METRICS_NAMESPACE = 'panto';

export interface LambdaTelemetry {
  telemetry: Telemetry;
  log: SessionServiceDeps['log'];
  logOutage: SessionServiceDeps['logOutage'];
}

/**
 * Telemetry for a Lambda handler; build it once, at module scope. The Logger and Metrics are
 * built when first used (the first request's record, or a failure before it): their set-up
 * is no part of a cold start's init.
 *
 * @example
 * export const handler = handle(serviceApp(lambdaConfig(), apiGatewayVerifier(), lambdaTelemetry()));
 */
export function lambdaTelemetry(options: { logger?: Logger; metrics?: Metrics } = {}): LambdaTelemetry {
  let logger = options.logger;
  let metrics = options.metrics;
  const log = (): Logger => (logger ??= new Logger({ serviceName: SERVICE_NAME }));
  return {
    telemetry: {
      request(record, lambdaContext) {
        try {
          const logger = log();
          metrics ??= new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME });
          if (isLambdaContext(lambdaContext)) logger.addContext(lambdaContext);
          const { usage, ...fields } = record;
          logger.info('request', { ...fields, ...(usage ? { tokens: usage } : {}) });
          metrics.addMetric('requests', MetricUnit.Count, 1);
          metrics.addMetric('latency', MetricUnit.Milliseconds, record.duration_ms);
          if (record.status >= 500) metrics.addMetric('errors', MetricUnit.Count, 1);
          if (record.turn) metrics.addMetric('turns', MetricUnit.Count, 1);
          if (usage) {
            metrics.addMetric('input_tokens', MetricUnit.Count, usage.input_tokens);
            metrics.addMetric('output_tokens', MetricUnit.Count, usage.output_tokens);
            metrics.addMetric('cache_read_tokens', MetricUnit.Count, usage.cache_read_tokens);
            metrics.addMetric('cache_write_tokens', MetricUnit.Count, usage.cache_write_tokens);
          }
          metrics.addMetadata('route', `${record.method} ${record.route}`);
          metrics.addMetadata('request_id', record.request_id);
          metrics.publishStoredMetrics();
        } catch (error) {
          // Telemetry must never fail a request.
          console.error('panto: telemetry failed', error);
        }
      },
    },
    log: (message, error) => log().error(message, error instanceof Error ? error : String(error)),
    logOutage: (message) => log().warn(message),
  };
}

/** What `logger.addContext` needs of a Lambda context. */
function isLambdaContext(value: unknown): value is Parameters<Logger['addContext']>[0] {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { awsRequestId?: unknown }).awsRequestId === 'string' &&
    typeof (value as { functionName?: unknown }).functionName === 'string'
  );
}
