/** The service's version, as its package.json says (a test holds them equal): what `GET /health` and the OpenAPI document report. */
export const SERVICE_VERSION = '0.1.0';
