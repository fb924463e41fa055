/**
 * The floor `bench/turn-cpu.ts` measures the server against: a bare script that makes a
 * plain turn's I/O and nothing else, with the same SDK clients built the same way — for each
 * turn, a `TransactWriteItems` of two message-shaped items (a META update and the prompt's
 * entry), the same streamed chat completion the server sent (its recorded request body, to
 * the same fake server), and a second `TransactWriteItems` of two items (META and the
 * answer's entry). `CONCURRENCY` turns at a time, as the server is driven.
 *
 * Prints `ready`; on each `go` line of stdin, reads its work from the JSON file named by argv[2]
 * (`BareWork`, rewritten between runs), runs it, and prints `done`.
 */
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { TransactWriteItemsCommand, type TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { localAwsClients } from '@panto/functions/local';
import OpenAI from 'openai';

export interface BareTurn {
  /** The chat completion's request body, as the server sent it. */
  body: Record<string, unknown>;
  /** The prompt's and the answer's entries, as JSONL lines the size of the server's. */
  promptLine: string;
  answerLine: string;
}

export interface BareWork {
  dynamodb: string;
  tableName: string;
  openaiBaseURL: string;
  concurrency: number;
  turns: BareTurn[];
}

let work = JSON.parse(await readFile(process.argv[2] ?? '', 'utf8')) as BareWork;
const { dynamo } = localAwsClients({ region: 'us-east-1', dynamodb: work.dynamodb });
// As the server's provider builds its client (`sdkClientOptions`): its key, base URL, timeout and retries.
const openai = new OpenAI({ apiKey: 'bench-key', baseURL: work.openaiBaseURL, timeout: 600_000, maxRetries: 2 });
let run = 0;

/** META's update and one entry's put, conditioned as an append is (the count it expects, the entry new). */
function append(session: string, count: number, line: string): TransactWriteItem[] {
  const pk = { S: `BARE#${session}` };
  return [
    {
      Update: {
        TableName: work.tableName,
        Key: { pk, sk: { S: 'META' } },
        UpdateExpression: 'SET #c = :c, #h = :h',
        ConditionExpression: 'attribute_not_exists(#c) OR #c = :expected',
        ExpressionAttributeNames: { '#c': 'entry_count', '#h': 'head' },
        ExpressionAttributeValues: { ':c': { N: String(count + 1) }, ':expected': { N: String(count) }, ':h': { S: `${session}-${count}` } },
      },
    },
    {
      Put: {
        TableName: work.tableName,
        Item: { pk, sk: { S: `E#${String(count).padStart(12, '0')}` }, count: { N: '1' }, lines: { S: line } },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

async function turn(session: string, count: number, each: BareTurn): Promise<void> {
  await dynamo.send(new TransactWriteItemsCommand({ TransactItems: append(session, count, each.promptLine) }));
  const stream = await openai.chat.completions.create({ ...(each.body as unknown as OpenAI.ChatCompletionCreateParamsStreaming), stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  if (text === '') throw new Error('the fake server answered no text');
  await dynamo.send(new TransactWriteItemsCommand({ TransactItems: append(session, count + 1, each.answerLine) }));
}

/** Every turn, `concurrency` at a time: each worker its own session, its turns in order. */
async function runAll(): Promise<void> {
  run++;
  const queue = [...work.turns];
  await Promise.all(
    Array.from({ length: work.concurrency }, async (_, worker) => {
      const session = `${process.pid}-${run}-${worker}`;
      for (let count = 0; ; count += 2) {
        const each = queue.shift();
        if (each === undefined) return;
        await turn(session, count, each);
      }
    }),
  );
}

// SIGTERM ends it as its stdin closing would (a CPU profile, when asked for, is written at a normal exit).
process.once('SIGTERM', () => process.stdin.destroy());
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line !== 'go') continue;
  work = JSON.parse(await readFile(process.argv[2] ?? '', 'utf8')) as BareWork;
  await runAll();
  process.stdout.write('done\n');
}
dynamo.destroy();
