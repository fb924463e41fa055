/**
 * The deploy-time settings more than one part of the stack reads (the others are read where
 * they are used; sst.config.ts lists them all): the origins browsers may call the API from,
 * the CORS rules, and the environment the HTTP functions share.
 */
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, CORS_EXPOSE_HEADERS, CORS_MAX_AGE_SECONDS, list } from '@panto/functions/deployment';

/** The port of the local stack (`npm start`), and of the web client's dev server under `sst dev`. */
export const DEV_PORT = 3000;
/** The local stack's origin (`npm start`), which a web client run there calls a dev stage from. */
export const DEV_ORIGINS = [`http://127.0.0.1:${DEV_PORT}`, `http://localhost:${DEV_PORT}`];

/** PANTO_CORS_ORIGINS, and under `sst dev` the local stack's origin. The web client needs none: it calls its own origin (the Router). */
export const corsOrigins = [...list(process.env.PANTO_CORS_ORIGINS), ...($dev ? DEV_ORIGINS : [])];

/**
 * What API Gateway and the streaming function's URL answer browsers with: the app's own CORS
 * rules (functions/src/http/cors.ts). The methods hold no OPTIONS: a preflight is answered
 * whatever they say, and a function URL refuses a method name over 6 characters.
 */
export const cors = {
  allowOrigins: corsOrigins,
  allowHeaders: [...CORS_ALLOW_HEADERS],
  allowMethods: [...CORS_ALLOW_METHODS],
  exposeHeaders: [...CORS_EXPOSE_HEADERS],
  maxAge: `${CORS_MAX_AGE_SECONDS} seconds` as const,
};

/** The environment of the functions that serve the API (functions/src/config.ts reads it). */
export const environment = {
  ...(process.env.PANTO_PROVIDER ? { PANTO_PROVIDER: process.env.PANTO_PROVIDER } : {}),
  ...(process.env.PANTO_MODEL ? { PANTO_MODEL: process.env.PANTO_MODEL } : {}),
  ...(process.env.PANTO_EXTRA_MODELS ? { PANTO_EXTRA_MODELS: process.env.PANTO_EXTRA_MODELS } : {}),
  ...(process.env.PANTO_SESSION_TTL_DAYS ? { PANTO_SESSION_TTL_DAYS: process.env.PANTO_SESSION_TTL_DAYS } : {}),
  ...(process.env.PANTO_IDEMPOTENCY_TTL_HOURS ? { PANTO_IDEMPOTENCY_TTL_HOURS: process.env.PANTO_IDEMPOTENCY_TTL_HOURS } : {}),
  ...(process.env.PANTO_MCP_SERVERS ? { PANTO_MCP_SERVERS: process.env.PANTO_MCP_SERVERS } : {}),
  // Which MCP tools ask for approval (functions/src/mcp-approvals.ts); no secret in it.
  ...(process.env.PANTO_MCP_APPROVALS ? { PANTO_MCP_APPROVALS: process.env.PANTO_MCP_APPROVALS } : {}),
  // Each owner's limits without overrides (the usage ledger; `npm run user -- limits` sets overrides).
  // …and the prices of models the catalog has none for, without which a budget refuses them.
  ...Object.fromEntries(
    ['PANTO_BUDGET_DAILY_USD', 'PANTO_BUDGET_MONTHLY_USD', 'PANTO_TURNS_PER_MINUTE', 'PANTO_CONCURRENT_TURNS', 'PANTO_MODEL_PRICES'].flatMap((name) =>
      process.env[name] ? [[name, process.env[name]]] : [],
    ),
  ),
  ...(corsOrigins.length > 0 ? { PANTO_CORS_ORIGINS: corsOrigins.join(',') } : {}),
};
