/**
 * The tracing seam: what the app uses of tracing (`Tracing`) and how it is started
 * (`TracingOptions`). tracing.ts starts it, loading the OpenTelemetry implementation (otel/)
 * only when tracing is on; both sides read these types from here.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Agent } from '@panto/core';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import type { Env } from '../config.js';

/** The service's tracing, as the app uses it. */
export interface Tracing {
  /** Opens each request's span; the app's first middleware. */
  readonly middleware: MiddlewareHandler<AppEnv>;
  /**
   * Follows an agent a turn or compaction built, for the request being served: its steps,
   * provider calls and tool calls become spans under the request's. Call once per agent,
   * before it runs. Never throws.
   */
  observeAgent(agent: Agent): void;
  /** Makes each call of `client` during a request a span. Call once per client. */
  instrument(client: DynamoDBClient | S3Client): void;
  /** Exports the spans that have ended (waiting at most a few seconds). Never rejects. */
  flush(): Promise<void>;
  /** Exports what is left and stops. Never rejects. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /**
   * Export each request's spans before its answer ends: on Lambda, where the process is
   * frozen once the answer is out and a batch left for later may never leave.
   */
  flushEachRequest: boolean;
  /** Where the resource's Lambda attributes are read (default `process.env`). */
  env?: Env;
}
