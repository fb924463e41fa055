/**
 * `@panto/aws/langgraph`: LangGraph.js's checkpointer on panto's DynamoDB table (see
 * docs/adapters.md). Needs `@langchain/langgraph-checkpoint` (an optional peer dependency);
 * nothing else of @panto/aws loads it.
 */
export { DynamoCheckpointSaver, type DynamoCheckpointSaverOptions } from './adapters/langgraph/dynamo-checkpoint-saver.js';
export { CheckpointConflictError, OffloadRequiredError } from './errors.js';
export type { S3Location } from './entries/offload.js';
