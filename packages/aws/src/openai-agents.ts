/**
 * `@panto/aws/openai-agents`: the OpenAI Agents SDK's `Session` on panto's DynamoDB table (see
 * docs/adapters.md). Imports only the SDK's types: nothing of it is loaded at run time.
 */
export { DynamoSession, type DynamoSessionOptions } from './adapters/openai-agents/dynamo-session.js';
export { OffloadRequiredError, SessionConflictError } from './errors.js';
export type { S3Location } from './entries/offload.js';
