/**
 * Attacks "no credential leaves the process: not in an error relayed to a client, a message
 * stored in a session, a trace or a log line" (docs/api.md, "Errors"; docs/aws.md, "Traces"):
 * a provider (or a proxy in front of it) whose error quotes the key it was sent —
 * "Incorrect API key provided: Bearer sk-…" — before any answer, and mid-answer.
 */
import { startTracing, type Tracing } from '@panto/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, parseSSE, startApi, type ApiHarness } from '../api-harness.js';
import { OTLPReceiver } from '../support/otlp-receiver.js';

const KEY = 'sk-proj-LEAKED0123456789abcdefXYZ';
const AWS_KEY = 'AKIALEAKED0123456789';
const MODEL = { provider: 'openai', model: 'gpt-5.4' };
const quoted = `Incorrect API key provided: Bearer ${KEY} (signed as ${AWS_KEY})`;

describe('a provider error that quotes the credentials it was sent', () => {
  let app: ApiHarness;
  let receiver: OTLPReceiver;
  let tracing: Tracing;
  beforeAll(async () => {
    receiver = await OTLPReceiver.start();
    process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${receiver.endpoint}/v1/traces`;
    tracing = await startTracing({ protocol: 'http/json', content: false }, { flushEachRequest: true });
    app = await startApi('adv-leak', { tracing });
  });
  afterAll(async () => {
    await app?.close();
    await tracing?.shutdown();
    await receiver?.close();
  });

  /** Everything that left the process so far: answers, stored sessions, spans, log lines. */
  const leaks = (...texts: string[]): string[] =>
    [...texts, JSON.stringify(receiver.spans), ...app.logged.map((error) => `${String(error)} ${(error as Error).stack ?? ''}`)].filter((text) =>
      text.includes('LEAKED'),
    );

  it('is relayed, stored and traced with the credentials taken out — a 401 before any answer, and an error mid-answer', async () => {
    const { id } = await app.newSession('yuri', MODEL);
    app.fake.enqueue({ status: 401, errorBody: { error: { message: quoted, type: 'invalid_request_error', code: 'invalid_api_key' } } });
    const failed = await app.call('yuri', 'POST', `/sessions/${id}/messages`, { text: 'hello' });
    expect(failed.status).toBe(502);
    const body = await failed.text();
    expect(body).toContain('Incorrect API key provided: Bearer [redacted]');

    app.fake.enqueue({ text: 'half an answer and then', errorEvent: { message: `upstream: ${quoted}`, afterDeltas: 3 } });
    const cut = await app.call('yuri', 'POST', `/sessions/${id}/messages`, { text: 'again' });
    const cutBody = await cut.text();

    app.fake.enqueue({ status: 401, errorBody: { error: { message: quoted, type: 'invalid_request_error', code: 'invalid_api_key' } } });
    const streamed = await app.call('yuri', 'POST', `/sessions/${id}/messages/stream`, { text: 'streamed' });
    const events = parseSSE(await streamed.text());
    expect(events.at(-1)).toMatchObject({ event: 'end', data: { error: { code: 'provider_error' } } });

    const stored = await json<{ messages: { error_message?: string }[] }>(await app.call('yuri', 'GET', `/sessions/${id}`), 200);
    expect(stored.messages.some((message) => message.error_message?.includes('[redacted]'))).toBe(true);
    await tracing.flush();
    const chat = receiver.spans.filter((span) => span.name === 'chat gpt-5.4' && span.status.code === 2);
    expect(chat.length).toBeGreaterThan(0);
    for (const span of chat) expect(span.status.message).toContain('[redacted]');
    expect(leaks(body, cutBody, JSON.stringify(events), JSON.stringify(stored))).toEqual([]);
  });
});
