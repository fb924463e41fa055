/**
 * `DynamoCheckpointSaver` (`@panto/aws/langgraph`) against LangGraph's own checkpointer
 * validation suite, `@langchain/langgraph-checkpoint-validation` 1.1.1 (put, putWrites,
 * getTuple, list, deleteThread — and the opt-in getDeltaChannelHistory suite), on DynamoDB
 * Local and s3rver. The suite is written for vitest's globals; it gets them here. Every
 * checkpointer it makes has a table of its own, as the suite asks (its `list` reads every thread).
 */
import { DynamoCheckpointSaver } from '@panto/aws/langgraph';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { localAws } from './setup/aws-fixtures.js';

Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });
const { deltaChannelHistoryTests, specTest } = await import('@langchain/langgraph-checkpoint-validation');

const initializer = {
  checkpointerName: '@panto/aws DynamoCheckpointSaver',
  async createCheckpointer() {
    const { dynamo, tableName, s3, bucket } = await localAws('langgraph');
    return new DynamoCheckpointSaver({ client: dynamo, tableName, s3: { client: s3, bucket } });
  },
};

specTest(initializer);
deltaChannelHistoryTests(initializer);
