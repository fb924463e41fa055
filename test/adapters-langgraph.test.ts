/**
 * LangGraph.js's own loop on `DynamoCheckpointSaver`, on DynamoDB Local and s3rver: a graph
 * that asks a fake model server (over HTTP, with the real `openai` client) and stops at an
 * `interrupt()`, resumed by another process; two runs racing on one thread; a branch made
 * with `updateState` that leaves the line it branched from as it was; big state in S3.
 */
import { spawn } from 'node:child_process';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { CheckpointConflictError, DynamoCheckpointSaver } from '@panto/aws/langgraph';
import { FakeLLMServer } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localAws, type LocalAws } from './setup/aws-fixtures.js';
import { objectKeys } from './setup/aws-inspect.js';
import { reviewGraph } from './support/langgraph-review-graph.js';

let server: FakeLLMServer;
beforeAll(async () => {
  server = await FakeLLMServer.start();
});
afterAll(() => server.close());

function saver(aws: LocalAws): DynamoCheckpointSaver {
  return new DynamoCheckpointSaver({ client: aws.dynamo, tableName: aws.tableName, s3: { client: aws.s3, bucket: aws.bucket } });
}

/** Runs test/langgraph-resume-child.ts; resolves to what it printed. */
function resumeInAnotherProcess(aws: LocalAws, threadId: string, verdict: string): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@panto/source', 'test/langgraph-resume-child.ts'], {
    env: {
      ...process.env,
      PANTO_TEST_DYNAMO: inject('dynamoEndpoint'),
      PANTO_TEST_S3: inject('s3Endpoint'),
      PANTO_TEST_TABLE: aws.tableName,
      PANTO_TEST_BUCKET: aws.bucket,
      PANTO_TEST_THREAD: threadId,
      PANTO_TEST_VERDICT: verdict,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`the resuming process exited ${code}: ${err}`)))),
  );
}

const Counter = Annotation.Root({ log: Annotation<string[]>({ reducer: (left, right) => left.concat(right), default: () => [] }) });

/** A graph whose one node takes `delayMs` (so two runs overlap) and logs the input it saw. */
function slowGraph(checkpointer: DynamoCheckpointSaver, delayMs: number) {
  return new StateGraph(Counter)
    .addNode('work', async (state) => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { log: [`done after ${state.log.length}`] };
    })
    .addEdge(START, 'work')
    .addEdge('work', END)
    .compile({ checkpointer });
}

describe('a LangGraph.js graph on DynamoCheckpointSaver', () => {
  it('stops at an interrupt, and another process resumes the run to the end', { timeout: 60_000 }, async () => {
    const aws = await localAws('langgraph-graph');
    const graph = reviewGraph(saver(aws), server.openaiBaseURL);
    server.enqueue({ text: 'Paris is the capital of France.' });
    const config = { configurable: { thread_id: 'review-1' } };
    const paused = await graph.invoke({ messages: ['What is the capital of France?'] }, config);
    expect((paused as { __interrupt__?: Array<{ value: unknown }> }).__interrupt__?.[0]?.value).toEqual({ draft: 'draft: Paris is the capital of France.' });
    expect((await graph.getState(config)).next).toEqual(['review']);

    const printed = await resumeInAnotherProcess(aws, 'review-1', 'yes');
    expect(JSON.parse(printed)).toEqual({
      messages: ['What is the capital of France?', 'draft: Paris is the capital of France.', 'review: yes', 'published'],
      approved: true,
    });
    const state = await reviewGraph(saver(aws), server.openaiBaseURL).getState(config);
    expect(state.next).toEqual([]);
    expect(state.values.messages).toHaveLength(4);
  });

  it('refuses the later of two runs racing on one thread with CheckpointConflictError; run again, it continues from the other', async () => {
    const aws = await localAws('langgraph-race');
    const config = { configurable: { thread_id: 'race-1' } };
    await slowGraph(saver(aws), 0).invoke({ log: ['start'] }, config);
    const results = await Promise.allSettled([
      slowGraph(saver(aws), 300).invoke({ log: ['from a'] }, config),
      slowGraph(saver(aws), 300).invoke({ log: ['from b'] }, config),
    ]);
    const refused = results.filter((result) => result.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(CheckpointConflictError);
    const winner = results.find((result) => result.status === 'fulfilled')!.value.log as string[];
    const loser = winner.includes('from a') ? 'from b' : 'from a';
    const final = await slowGraph(saver(aws), 0).invoke({ log: [loser] }, config);
    expect(final.log).toEqual([...winner, loser, `done after ${winner.length + 1}`]);
  });

  it('branches with updateState from an earlier checkpoint and leaves every checkpoint of the line it branched from as it was', async () => {
    const aws = await localAws('langgraph-fork');
    const graph = slowGraph(saver(aws), 0);
    const config = { configurable: { thread_id: 'fork-1' } };
    await graph.invoke({ log: ['one'] }, config);
    await graph.invoke({ log: ['two'] }, config);
    const history = [];
    for await (const state of graph.getStateHistory(config)) history.push(state);
    // The checkpoint after the first run's input, before its node ran.
    const start = history.find((state) => state.next[0] === 'work' && state.values.log.length === 1)!;
    const branch = await graph.updateState(start.config, { log: ['edited'] });
    expect((await graph.getState(branch)).values.log).toEqual(['one', 'edited']);
    expect((await graph.getState(config)).values.log).toEqual(['one', 'edited']);
    for (const state of history) expect((await graph.getState(state.config)).values).toEqual(state.values);
  });

  it('keeps a 500 KB value in S3 and reads it back; deleteThread removes the thread and its objects', async () => {
    const aws = await localAws('langgraph-big');
    const checkpointer = saver(aws);
    const graph = slowGraph(checkpointer, 0);
    const config = { configurable: { thread_id: 'big-1' } };
    const big = 'v'.repeat(500 * 1024);
    await graph.invoke({ log: [big] }, config);
    expect((await slowGraph(saver(aws), 0).getState(config)).values.log).toEqual([big, 'done after 1']);
    expect((await objectKeys(aws, 'offload/langgraph/big-1/')).length).toBeGreaterThan(0);
    await checkpointer.deleteThread('big-1');
    expect(await objectKeys(aws, 'offload/langgraph/big-1/')).toEqual([]);
    expect(await checkpointer.getTuple(config)).toBeUndefined();
  });
});
