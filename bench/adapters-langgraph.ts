/**
 * The adapters bench's LangGraph.js section: the same chat graph (a `messages` list with an
 * appending reducer, one node that answers — with a tool call and its 4 KB result every other
 * turn) compiled with `DynamoCheckpointSaver` and with `@rwai/langgraphjs-checkpoint-dynamodb`,
 * the LangGraph.js DynamoDB saver on npm (two tables of its own, keyed as its README says).
 */
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Annotation, type BaseCheckpointSaver, END, START, StateGraph } from '@langchain/langgraph';
import { CheckpointConflictError, DynamoCheckpointSaver } from '@panto/aws/langgraph';
import { DynamoDBSaver } from '@rwai/langgraphjs-checkpoint-dynamodb';
import { EMULATOR_CREDENTIALS } from '@panto/functions/local';
import { attach, BUCKET, type BenchAws, compared, type Cost, costOf, type Row, TABLE } from './adapters-meter.js';
import { BIG_BYTES, lostOf, MEASURED_TURNS, TURNS, turnText, WRITER_TURNS, WRITERS } from './adapters-workload.js';

const CHECKPOINTS_TABLE = 'bench-rwai-checkpoints';
const WRITES_TABLE = 'bench-rwai-writes';

const Chat = Annotation.Root({
  messages: Annotation<Array<{ role: string; content: string }>>({ reducer: (left, right) => left.concat(right), default: () => [] }),
});

function chatGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(Chat)
    .addNode('agent', (state) => {
      const n = state.messages.filter((message) => message.role === 'user').length;
      const text = turnText(n);
      return {
        messages: [
          ...(text.toolResult === null
            ? []
            : [
                { role: 'assistant', content: `call read(file-${n}.ts)` },
                { role: 'tool', content: text.toolResult },
              ]),
          { role: 'assistant', content: text.answer },
        ],
      };
    })
    .addEdge(START, 'agent')
    .addEdge('agent', END)
    .compile({ checkpointer });
}

async function rwaiSaver(aws: BenchAws): Promise<DynamoDBSaver> {
  const saver = new DynamoDBSaver({
    clientConfig: { endpoint: aws.dynamoEndpoint, region: 'us-east-1', credentials: EMULATOR_CREDENTIALS },
    checkpointsTableName: CHECKPOINTS_TABLE,
    writesTableName: WRITES_TABLE,
  });
  return saver;
}

async function createRwaiTables(aws: BenchAws): Promise<void> {
  const table = (name: string, hash: string, range: string) =>
    aws.dynamo.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: hash, AttributeType: 'S' },
          { AttributeName: range, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: hash, KeyType: 'HASH' },
          { AttributeName: range, KeyType: 'RANGE' },
        ],
      }),
    );
  await table(CHECKPOINTS_TABLE, 'thread_id', 'checkpoint_id');
  await table(WRITES_TABLE, 'thread_id_checkpoint_id_checkpoint_ns', 'task_id_idx');
}

export async function langgraphRows(aws: BenchAws): Promise<Row[]> {
  await createRwaiTables(aws);
  const ours = () => new DynamoCheckpointSaver({ client: aws.dynamo, tableName: TABLE, s3: { client: aws.s3, bucket: BUCKET } });
  const baseline = async () => {
    const saver = await rwaiSaver(aws);
    // Its client is its own (a private field): count it too.
    attach(aws.meter, (saver as unknown as { client: DynamoDBClient }).client);
    return saver as unknown as BaseCheckpointSaver;
  };
  const rows: Row[] = [];
  const [mine, theirs] = [chatGraph(ours()), chatGraph(await baseline())];
  const config = { configurable: { thread_id: 'grown' } };
  let refusedAt: number | null = null;
  for (let turn = 1; turn <= TURNS; turn++) {
    const input = { messages: [{ role: 'user', content: turnText(turn).prompt }] };
    const ourCost = await costOf(aws.meter, () => mine.invoke(input, config));
    let theirCost: Cost | string = `refused since turn ${refusedAt}`;
    if (refusedAt === null) {
      try {
        theirCost = await costOf(aws.meter, () => theirs.invoke(input, config));
      } catch (error) {
        refusedAt = turn;
        theirCost = `refused since turn ${turn} (${(error as Error).name}: a checkpoint item is over 400 KB)`;
      }
    }
    if ((MEASURED_TURNS as readonly number[]).includes(turn)) rows.push([`a turn (graph.invoke), turn ${turn}`, compared(ourCost, theirCost)]);
  }
  const big = { messages: [{ role: 'user', content: 'z'.repeat(BIG_BYTES) }] };
  const bigOutcome = async (graph: ReturnType<typeof chatGraph>) =>
    graph.invoke(big, { configurable: { thread_id: 'big' } }).then(
      () => 'stored and read back whole',
      (error: Error) => `refused (${error.name})`,
    );
  rows.push(['a 500 KB message', `ours ${await bigOutcome(chatGraph(ours()))} · baseline ${await bigOutcome(chatGraph(await baseline()))}`]);
  rows.push([
    `${WRITERS} writers × ${WRITER_TURNS} turns on one thread`,
    `ours ${await twoWriters(() => Promise.resolve(ours()))} · baseline ${await twoWriters(baseline)}`,
  ]);
  return rows;
}

/**
 * Two writers each run 20 turns on one thread at once, each on a saver of its own (two
 * processes). A turn is acknowledged when `invoke` resolves; a refused one
 * (`CheckpointConflictError`) is run again, as a caller does with an error. Lost: an
 * acknowledged turn's prompt that the thread's final state does not hold.
 */
async function twoWriters(make: () => Promise<BaseCheckpointSaver>): Promise<string> {
  const config = { configurable: { thread_id: `writers-${Math.random()}` } };
  let acknowledged = 0;
  let refused = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      const graph = chatGraph(await make());
      for (let turn = 0; turn < WRITER_TURNS; turn++) {
        for (;;) {
          try {
            await graph.invoke({ messages: [{ role: 'user', content: `writer ${writer} turn ${turn}` }] }, config);
            acknowledged++;
            break;
          } catch (error) {
            if (!(error instanceof CheckpointConflictError)) throw error;
            refused++;
          }
        }
      }
    }),
  );
  const final = (await chatGraph(await make()).getState(config)).values as { messages: Array<{ role: string; content: string }> };
  const found = new Set(final.messages.filter((message) => message.content.startsWith('writer ')).map((message) => message.content)).size;
  return `${lostOf(acknowledged, found)}${refused > 0 ? ` (${refused} turns refused and run again)` : ''}`;
}
