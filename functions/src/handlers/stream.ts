/**
 * The streaming function behind a Lambda function URL (response streaming), for
 * `POST /sessions/{id}/messages/stream` (turns longer than API Gateway's 30 s) and
 * `GET /sessions/{id}/events` (following a running turn), as server-sent events, and the AI SDK's
 * `POST /chat` and `GET /chat/{id}/stream` (the UI message stream). A function URL has no JWT authorizer, so this function verifies the
 * bearer token against the issuer's keys itself. Tracing as in api.ts: a stream's spans are
 * exported before its last byte.
 */
import { streamHandle } from '../http/lambda-adapter.js';
import { jwksVerifier } from '../auth/jwks-verifier.js';
import { lambdaConfig, lambdaIssuer } from '../config.js';
import { lambdaTelemetry } from '../telemetry/lambda-telemetry.js';
import { lambdaTracing } from '../telemetry/tracing.js';
import { serviceApp } from '../app/service-app.js';
import { lambdaA2A } from '../a2a-settings.js';

const telemetry = lambdaTelemetry();
const tracing = await lambdaTracing(process.env, telemetry.logOutage);

export const handler: ReturnType<typeof streamHandle> = streamHandle(
  serviceApp(lambdaConfig(), jwksVerifier(lambdaIssuer()), { ...telemetry, a2a: lambdaA2A(), ...(tracing ? { tracing } : {}) }),
);
