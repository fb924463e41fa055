/**
 * The AI SDK's stream helpers (`createUIMessageStream`, `createUIMessageStreamResponse`), loaded
 * by the first chat request: the `ai` package, and the OpenTelemetry API it imports, stay out of
 * a cold start (test/lambda-bundles.test.ts holds it). Later requests get the loaded module.
 */
export function uiStream(): Promise<typeof import('ai')> {
  return import('ai');
}
