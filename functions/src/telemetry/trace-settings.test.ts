import { describe, expect, it } from 'vitest';
import { traceSettings } from './trace-settings.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' };

describe('traceSettings', () => {
  it('is off, with nothing to say, without an OTLP endpoint', () => {
    expect(traceSettings({})).toEqual({ settings: null, problems: [] });
    expect(traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ', PANTO_TRACE_CONTENT: '1' })).toEqual({ settings: null, problems: [] });
  });

  it('is on with either endpoint variable, over http/protobuf unless a protocol is named, without content', () => {
    expect(traceSettings(ENDPOINT)).toEqual({ settings: { protocol: 'http/protobuf', content: false }, problems: [] });
    expect(traceSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example.com/v1/traces' }).settings).toEqual({
      protocol: 'http/protobuf',
      content: false,
    });
    expect(traceSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).settings?.protocol).toBe('http/json');
  });

  it('takes the traces protocol over the general one', () => {
    expect(traceSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' }).settings?.protocol).toBe(
      'http/json',
    );
  });

  it('turns itself off, saying why, for grpc', () => {
    expect(traceSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual({
      settings: null,
      problems: ['tracing is off: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported (use http/protobuf or http/json)'],
    });
  });

  it('honours OTEL_SDK_DISABLED and an OTEL_TRACES_EXPORTER without otlp', () => {
    expect(traceSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'true' }).settings).toBeNull();
    expect(traceSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }).settings).toBeNull();
    expect(traceSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'console, otlp' }).settings).not.toBeNull();
  });

  it('records content only with PANTO_TRACE_CONTENT=1 (or true), and says so of a value it does not know', () => {
    expect(traceSettings({ ...ENDPOINT, PANTO_TRACE_CONTENT: '1' }).settings?.content).toBe(true);
    expect(traceSettings({ ...ENDPOINT, PANTO_TRACE_CONTENT: 'true' }).settings?.content).toBe(true);
    expect(traceSettings({ ...ENDPOINT, PANTO_TRACE_CONTENT: '0' })).toEqual({ settings: { protocol: 'http/protobuf', content: false }, problems: [] });
    expect(traceSettings({ ...ENDPOINT, PANTO_TRACE_CONTENT: 'yes' })).toEqual({
      settings: { protocol: 'http/protobuf', content: false },
      problems: ['PANTO_TRACE_CONTENT=yes is not 1 or 0: prompts and answers stay out of spans'],
    });
  });
});
