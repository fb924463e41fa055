/**
 * Whether the service traces, read from OpenTelemetry's standard environment variables (and
 * `PANTO_TRACE_CONTENT`). Nothing here loads OpenTelemetry: with tracing off, no module of it
 * is imported at all (see tracing.ts). What the exporter itself reads — the endpoint, headers,
 * timeout, compression — it reads from the same variables when it is built.
 */
import type { Env } from '../config.js';

/** The OTLP transports panto exports over. */
export type TraceProtocol = 'http/protobuf' | 'http/json';

export interface TraceSettings {
  protocol: TraceProtocol;
  /** Prompts, answers, tool arguments and results in spans (`PANTO_TRACE_CONTENT=1`); off by default. */
  content: boolean;
}

/** Tracing's settings (null: off), and what is wrong with them, a line each for the operator. */
export interface TraceSettingsResult {
  settings: TraceSettings | null;
  problems: string[];
}

/**
 * Tracing is on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is
 * set, unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER` names no `otlp` exporter.
 * The protocol is `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else
 * `http/protobuf` (the specification's default); `grpc` is not offered (a function has no
 * use for a long-lived HTTP/2 channel), and asking for it turns tracing off with a problem.
 * `PANTO_TRACE_CONTENT` other than `1`/`true`/`0`/`false` keeps content out, with a problem.
 */
export function traceSettings(env: Env): TraceSettingsResult {
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
  if (endpoint === '' || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return { settings: null, problems: [] };
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  if (exporters.length > 0 && !exporters.includes('otlp')) return { settings: null, problems: [] };
  const protocolVariable = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[protocolVariable] ?? '').trim() || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    return { settings: null, problems: [`tracing is off: ${protocolVariable}=${protocol} is not supported (use http/protobuf or http/json)`] };
  }
  const text = (env.PANTO_TRACE_CONTENT ?? '').trim().toLowerCase();
  const content = text === '1' || text === 'true';
  const problems =
    content || text === '' || text === '0' || text === 'false'
      ? []
      : [`PANTO_TRACE_CONTENT=${env.PANTO_TRACE_CONTENT} is not 1 or 0: prompts and answers stay out of spans`];
  return { settings: { protocol, content }, problems };
}
