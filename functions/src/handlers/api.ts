/**
 * The HTTP API behind API Gateway (HTTP API, payload 2.0). API Gateway's JWT authorizer
 * has verified the token; the app trusts the claims it passes on. Clients, config,
 * telemetry (Powertools Logger and Metrics) and tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set; else none of it loaded) are built once per container, at module scope.
 */
import { handle } from '../http/lambda-adapter.js';
import { apiGatewayVerifier } from '../auth/api-gateway-verifier.js';
import { lambdaConfig } from '../config.js';
import { lambdaTelemetry } from '../telemetry/lambda-telemetry.js';
import { lambdaTracing } from '../telemetry/tracing.js';
import { serviceApp } from '../app/service-app.js';
import { lambdaA2A } from '../a2a-settings.js';

const telemetry = lambdaTelemetry();
const tracing = await lambdaTracing(process.env, telemetry.logOutage);

export const handler = handle(serviceApp(lambdaConfig(), apiGatewayVerifier(), { ...telemetry, a2a: lambdaA2A(), ...(tracing ? { tracing } : {}) }));
