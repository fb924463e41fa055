/**
 * What the adapters bench counts of every client, whatever store drives it: requests, bytes
 * sent and received (HTTP bodies, by their content-length), and DynamoDB write units as
 * DynamoDB reports them (`INDEXES`: the table's and each index's, which is what is billed —
 * see turn-writes.ts for why not `TOTAL`).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';

export interface Meter {
  requests: number;
  bytesOut: number;
  bytesIn: number;
  writeUnits: number;
  reset(): void;
}

interface Consumed {
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

const WRITES = new Set(['TransactWriteItemsCommand', 'UpdateItemCommand', 'PutItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand']);

function lengthOf(headers: Record<string, string> | undefined, body: unknown): number {
  const declared = headers?.['content-length'] ?? headers?.['Content-Length'];
  if (declared !== undefined) return Number(declared);
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Uint8Array) return body.byteLength;
  return 0;
}

/** Starts counting on each client; one meter for all of them. */
export function meter(...clients: ReadonlyArray<DynamoDBClient | S3Client>): Meter {
  const counted: Meter = {
    requests: 0,
    bytesOut: 0,
    bytesIn: 0,
    writeUnits: 0,
    reset() {
      counted.requests = 0;
      counted.bytesOut = 0;
      counted.bytesIn = 0;
      counted.writeUnits = 0;
    },
  };
  for (const client of clients) attach(counted, client);
  return counted;
}

/** Counts `client`'s traffic on `counted` too. */
export function attach(counted: Meter, client: DynamoDBClient | S3Client): void {
  const stack = (client as DynamoDBClient).middlewareStack;
  stack.add(
    (next, context) => async (args) => {
      if (WRITES.has(context.commandName ?? '')) (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'INDEXES';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: Consumed | Consumed[] }).ConsumedCapacity;
      for (const each of Array.isArray(consumed) ? consumed : consumed === undefined ? [] : [consumed]) {
        counted.writeUnits += each.Table?.CapacityUnits ?? 0;
        for (const index of Object.values(each.GlobalSecondaryIndexes ?? {})) counted.writeUnits += index.CapacityUnits ?? 0;
      }
      return result;
    },
    { step: 'initialize', name: `adaptersBenchUnits-${Math.random()}` },
  );
  stack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string>; body?: unknown };
      counted.requests++;
      counted.bytesOut += lengthOf(request.headers, request.body);
      const result = await next(args);
      const response = result.response as { headers?: Record<string, string> };
      counted.bytesIn += lengthOf(response.headers, undefined);
      return result;
    },
    { step: 'finalizeRequest', name: `adaptersBenchBytes-${Math.random()}` },
  );
}

/** What one measured piece of work cost. */
export interface Cost {
  requests: number;
  bytes: number;
  writeUnits: number;
}

/** Runs `work` and returns what it cost on `counted`. */
export async function costOf(counted: Meter, work: () => Promise<unknown>): Promise<Cost> {
  counted.reset();
  await work();
  return { requests: counted.requests, bytes: counted.bytesOut + counted.bytesIn, writeUnits: counted.writeUnits };
}

export function describeCost(cost: Cost): string {
  const kb = cost.bytes >= 10_240 ? `${(cost.bytes / 1024).toFixed(0)} KB` : `${(cost.bytes / 1024).toFixed(1)} KB`;
  return `${cost.requests} req, ${kb}, ${cost.writeUnits.toFixed(0)} WCU`;
}

/**
 * `baseline ÷ ours` for requests, bytes and write units: how many times more the baseline
 * costs. Write units only when both spent some (an S3 baseline bills requests, not WCU).
 */
export function ratio(ours: Cost, baseline: Cost): string {
  const times = (a: number, b: number) => (a === 0 ? (b === 0 ? '1.0×' : '∞') : `${(b / a).toFixed(1)}×`);
  const units = ours.writeUnits > 0 && baseline.writeUnits > 0 ? `, ${times(ours.writeUnits, baseline.writeUnits)} WCU` : '';
  return `${times(ours.requests, baseline.requests)} req, ${times(ours.bytes, baseline.bytes)} bytes${units}`;
}

/** The table and bucket the adapters' bench runs on. */
export const TABLE = 'bench-adapters';
export const BUCKET = 'bench-adapters';

/** The clients and meter every section of the adapters' bench shares. */
export interface BenchAws {
  dynamo: DynamoDBClient;
  s3: S3Client;
  dynamoEndpoint: string;
  meter: Meter;
}

export type Row = readonly [string, string];

/** `ours · baseline · baseline ÷ ours`. */
export function compared(ours: Cost, baseline: Cost | string): string {
  return typeof baseline === 'string'
    ? `ours ${describeCost(ours)} · baseline ${baseline}`
    : `ours ${describeCost(ours)} · baseline ${describeCost(baseline)} · baseline ÷ ours: ${ratio(ours, baseline)}`;
}
