import { afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaTelemetry } from './lambda-telemetry.js';
import { ownerHash, type RequestRecord } from './request-telemetry.js';

/** The JSON lines written to stdout and stderr while `run` runs. */
function stdoutLines(run: () => void): Record<string, unknown>[] {
  const lines: string[] = [];
  const capture = (chunk: string | Uint8Array): boolean => {
    lines.push(
      ...String(chunk)
        .split('\n')
        .filter((line) => line.trim() !== ''),
    );
    return true;
  };
  const spies = [vi.spyOn(process.stdout, 'write').mockImplementation(capture), vi.spyOn(process.stderr, 'write').mockImplementation(capture)];
  try {
    run();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

const turn: RequestRecord = {
  request_id: 'JKJaXmPLvHcESHA=',
  method: 'POST',
  route: '/sessions/{id}/messages',
  status: 200,
  duration_ms: 812,
  session_id: '0190a1b2-0000-7000-8000-000000000001',
  owner_hash: ownerHash('alice'),
  turn: true,
  usage: { input_tokens: 313, output_tokens: 40, cache_read_tokens: 1000, cache_write_tokens: 0 },
};

describe('lambdaTelemetry', () => {
  afterEach(() => vi.restoreAllMocks());

  it('logs each request as one JSON line with its id, route, status, duration, session, owner hash and tokens', () => {
    const { telemetry } = lambdaTelemetry();
    const context = {
      awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      functionName: 'panto-api',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:panto-api',
      memoryLimitInMB: '1024',
    };
    const [log] = stdoutLines(() => telemetry.request(turn, context));
    expect(log).toMatchObject({
      level: 'INFO',
      message: 'request',
      service: 'panto',
      request_id: 'JKJaXmPLvHcESHA=',
      method: 'POST',
      route: '/sessions/{id}/messages',
      status: 200,
      duration_ms: 812,
      session_id: '0190a1b2-0000-7000-8000-000000000001',
      owner_hash: ownerHash('alice'),
      turn: true,
      tokens: { input_tokens: 313, output_tokens: 40, cache_read_tokens: 1000, cache_write_tokens: 0 },
      function_request_id: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      function_name: 'panto-api',
    });
    expect(JSON.stringify(log)).not.toContain('alice');
  });

  it('publishes turns, tokens, latency and requests as CloudWatch embedded metrics in namespace panto', () => {
    const { telemetry } = lambdaTelemetry();
    const [, emf] = stdoutLines(() => telemetry.request(turn, undefined));
    expect(emf).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'panto',
            Dimensions: [['service']],
            Metrics: expect.arrayContaining([
              { Name: 'requests', Unit: 'Count' },
              { Name: 'latency', Unit: 'Milliseconds' },
              { Name: 'turns', Unit: 'Count' },
              { Name: 'input_tokens', Unit: 'Count' },
              { Name: 'output_tokens', Unit: 'Count' },
            ]),
          },
        ],
      },
      service: 'panto',
      requests: 1,
      latency: 812,
      turns: 1,
      input_tokens: 313,
      output_tokens: 40,
      route: 'POST /sessions/{id}/messages',
    });
    expect(emf).not.toHaveProperty('errors');
  });

  it('counts a 5xx as an error, and a request without a turn as no turn', () => {
    const { telemetry } = lambdaTelemetry();
    const { turn: _turn, usage: _usage, ...plain } = turn;
    const [log, emf] = stdoutLines(() => telemetry.request({ ...plain, status: 503, error_code: 'unavailable' }, undefined));
    expect(log).toMatchObject({ status: 503, error_code: 'unavailable' });
    expect(emf).toMatchObject({ errors: 1, requests: 1 });
    expect(emf).not.toHaveProperty('turns');
    expect(emf).not.toHaveProperty('input_tokens');
  });

  it('logs defects with their error and outages as warnings, through the same logger', () => {
    const { log, logOutage } = lambdaTelemetry();
    const [defect, outage] = stdoutLines(() => {
      log('GET /sessions failed', new TypeError('x is undefined'));
      logOutage('GET /sessions: backend unavailable: ECONNREFUSED');
    });
    expect(defect).toMatchObject({ level: 'ERROR', message: 'GET /sessions failed', error: { name: 'TypeError', message: 'x is undefined' } });
    expect(outage).toMatchObject({ level: 'WARN', message: 'GET /sessions: backend unavailable: ECONNREFUSED' });
  });
});
