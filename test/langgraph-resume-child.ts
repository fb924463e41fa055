/**
 * Another process resuming a LangGraph run: it builds the review graph on its own
 * `DynamoCheckpointSaver` (table and bucket from its environment), answers the pending
 * interrupt with `PANTO_TEST_VERDICT`, and prints the thread's final state as JSON.
 */
import { Command } from '@langchain/langgraph';
import { DynamoCheckpointSaver } from '@panto/aws/langgraph';
import { localDynamoDBClient } from '../scripts/local/dynamodb-local.js';
import { localS3Client } from '../scripts/local/s3-local.js';
import { reviewGraph } from './support/langgraph-review-graph.js';

const env = process.env;
const checkpointer = new DynamoCheckpointSaver({
  client: localDynamoDBClient(env.PANTO_TEST_DYNAMO!),
  tableName: env.PANTO_TEST_TABLE!,
  s3: { client: localS3Client(env.PANTO_TEST_S3!), bucket: env.PANTO_TEST_BUCKET! },
});
// The model is not asked again: the run resumes at `review`.
const graph = reviewGraph(checkpointer, 'http://127.0.0.1:9/v1');
const state = await graph.invoke(new Command({ resume: env.PANTO_TEST_VERDICT }), { configurable: { thread_id: env.PANTO_TEST_THREAD! } });
process.stdout.write(`${JSON.stringify(state)}\n`);
