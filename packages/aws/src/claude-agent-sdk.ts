/**
 * `@panto/aws/claude-agent-sdk`: the Claude Agent SDK's `SessionStore` on panto's DynamoDB
 * table (see docs/adapters.md). Imports nothing of the SDK: its types are structural.
 */
export { DynamoSessionStore, type DynamoSessionStoreOptions } from './adapters/claude-agent-sdk/dynamo-session-store.js';
export type { SessionKey, SessionStore, SessionStoreEntry } from './adapters/claude-agent-sdk/types.js';
export type { S3Location } from './entries/offload.js';
